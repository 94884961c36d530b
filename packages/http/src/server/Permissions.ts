/**
 * What a team member's role must be for each partner operation (`group.endpoint` of the API), checked
 * on the server for every request a member's dashboard session makes (server/AuthMiddleware.ts).
 * API keys keep the partner's full rights. An operation missing here is the owner's alone: a new
 * route is closed to members until it is added, never open by accident.
 *
 * @module
 */
import { allows, type Permission, type Role } from "@paygate/domain"

/** Operation (`group.endpoint`) → the role it needs (`viewer`: every member; `owner`: owners only). */
export const permissions: Readonly<Record<string, Permission>> = {
  // Reads: every member.
  "payments.list": "viewer",
  "payments.get": "viewer",
  "payments.status": "viewer",
  "refunds.list": "viewer",
  "balance.get": "viewer",
  "receipts.list": "viewer",
  "merchants.list": "viewer",
  "merchants.get": "viewer",
  "merchants.payments": "viewer",
  "merchants.paymentsByPath": "viewer",
  "merchants.settlements": "viewer",
  "webhooks.list": "viewer",
  "webhooks.deliveries": "viewer",
  "webhooks.events": "viewer",
  "webhooks.event": "viewer",
  "webhooks.paymentDeliveries": "viewer",
  "apiKeys.list": "viewer",
  "team.members": "viewer",
  "links.list": "viewer",
  "links.get": "viewer",
  "plans.list": "viewer",
  "plans.get": "viewer",
  "subscriptions.list": "viewer",
  "subscriptions.get": "viewer",
  "exports.payments": "viewer",
  "exports.settlements": "viewer",
  "exports.refunds": "viewer",
  "exports.balances": "viewer",
  // Money going back and payments: operators.
  "payments.create": "operator",
  "payments.cancel": "operator",
  "payments.capture": "operator",
  "payments.void": "operator",
  "payments.retryRefund": "operator",
  "payments.retrySettlement": "operator",
  "refunds.create": "operator",
  "refunds.claimLink": "operator",
  "receipts.refund": "operator",
  "receipts.retryRefund": "operator",
  "links.create": "operator",
  "links.activate": "operator",
  "links.deactivate": "operator",
  "plans.create": "operator",
  "plans.activate": "operator",
  "plans.deactivate": "operator",
  "subscriptions.cancel": "operator",
  "subscriptions.pause": "operator",
  "subscriptions.resume": "operator",
  // Integration: developers.
  "apiKeys.create": "developer",
  "apiKeys.revoke": "developer",
  "webhooks.create": "developer",
  "webhooks.update": "developer",
  "webhooks.remove": "developer",
  "webhooks.rotateSecret": "developer",
  "webhooks.redeliver": "developer",
  "webhooks.test": "developer",
  // Money beyond the payout limits the operator set: owners.
  "payments.approveRefund": "owner",
  "payments.approveSettlement": "owner"
  // Merchants, their settlement addresses, the team and the audit log: owners (by absence).
}

/** The role an operation needs: the map's, else the owner's. */
export const permissionOf = (operation: string): Permission => (Object.hasOwn(permissions, operation) ? permissions[operation]! : "owner")

/** Whether a member of `role` may call `operation`. */
export const mayCall = (role: Role, operation: string): boolean => allows(role, permissionOf(operation))
