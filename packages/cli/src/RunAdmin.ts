import {
  Chain,
  Configuration,
  CredentialAdmin,
  Invitations,
  LedgerOpener,
  SqlDataCollectionThresholds,
  SqlDepositStore
} from "@paygate/adapters"
import {
  Caip,
  LedgerBalances,
  Merchants,
  type Mode,
  type PartnerId,
  PayoutApprovals,
  PayoutRetries,
  ReceiptRefunds,
  type ReconciliationLine,
  ReceiptStore,
  receiptView,
  systemAccess,
  TeamStore
} from "@paygate/domain"
import { Clock, Effect, Option, Result } from "effect"
import type { SqlClient } from "effect/sql"
import type { AdminCommand } from "./AdminCommand.ts"

/** What the commands run on, which the host provides (the composition root's `Operator.operator`). */
export type AdminServices =
  | CredentialAdmin
  | Merchants
  | PayoutRetries
  | PayoutApprovals
  | ReceiptRefunds
  | ReceiptStore
  | TeamStore
  | LedgerBalances
  | LedgerOpener
  | SqlClient.SqlClient

/** Why an operator command failed, in words for the operator. */
export class AdminFailure extends Error {}

const mode = (sandbox: boolean): Mode => (sandbox ? "sandbox" : "live")

// Times are stored in Unix milliseconds; an operator reads ISO 8601.
const iso = (millis: number) => new Date(millis).toISOString()

/** What a ledger line prints, the report's and the opening's alike: one address and token at a block, both sides. */
const ledgerLine = (l: ReconciliationLine) => ({
  chainId: l.chainId,
  asset: l.asset,
  kind: l.kind,
  address: l.address,
  block: l.blockNumber,
  ledger: l.ledger.toString(),
  chain: l.chain.toString()
})
const isoOrNull = (millis: number | null) => (millis === null ? null : iso(millis))

// A deployment's failure as one line: a configuration error prints whole (it names the variable), others by their message.
const deployFailure = (error: { readonly _tag: string; readonly message: string }) =>
  new AdminFailure(error._tag === "ConfigError" ? String(error) : error.message)

const isEvmAddress = (text: string) => /^0x[0-9a-fA-F]{40}$/.test(text)

/** Runs one command and answers the JSON value to print. */
export const runAdmin = (command: AdminCommand) =>
  Effect.gen(function*() {
    const admin = yield* CredentialAdmin
    switch (command._tag) {
      case "PartnerCreate": {
        const partner = yield* admin.createPartner({ name: command.name, pinnedVersion: command.version })
        const key = yield* admin.createApiKey({ kind: "partner", partnerId: partner.id, mode: mode(command.sandbox) })
        return { partnerId: partner.id, apiKey: key.apiKey }
      }
      case "KeyCreate": {
        const partnerId = command.partnerId as PartnerId
        const own = yield* admin.partnerMode(partnerId)
        if (command.mode === "live" && own === "sandbox") {
          return yield* Effect.fail(
            new AdminFailure(
              `${partnerId} is a sandbox partner (made with --sandbox; all its keys are sandbox keys), so it gets no live key: a sandbox partner can never move real money. For live payments, make a live partner: npm run admin -- partner create --name <name>`
            )
          )
        }
        const keyMode = command.mode ?? own
        const key = yield* admin.createApiKey({ kind: "partner", partnerId, mode: keyMode })
        return { keyId: key.keyId, apiKey: key.apiKey, mode: keyMode }
      }
      case "TeamInvite": {
        const partnerId = command.partnerId as PartnerId
        const own = yield* admin.partnerMode(partnerId)
        const inviteMode = own === "sandbox" ? "sandbox" : command.mode ?? "live"
        const origin = Option.getOrElse(yield* Configuration.publicUrl, () => "http://localhost:3000")
        const invited = yield* Invitations.invite({ partnerId, mode: inviteMode, email: command.email, role: command.role, invitedBy: "operator" }, origin).pipe(
          Effect.mapError((error) => new AdminFailure(error.message))
        )
        const at = yield* Clock.currentTimeMillis
        yield* (yield* TeamStore).record({ partnerId, mode: inviteMode, actor: "operator", action: "team.invite", subject: `${invited.email} as ${invited.role}`, at })
        return invited
      }
      case "KeyRevoke": {
        if (!(yield* admin.revokeKey(command.keyId))) return yield* Effect.fail(new AdminFailure(`No key ${command.keyId}.`))
        return { keyId: command.keyId, revoked: true }
      }
      case "AppCreate": {
        const app = yield* admin.createApp({ name: command.name, mode: mode(command.sandbox) })
        return { appId: app.appId, walletApiKey: app.walletApiKey }
      }
      case "PartnerList":
        return (yield* admin.listPartners).map((partner) => ({ ...partner, createdAt: iso(partner.createdAt) }))
      case "PartnerVersion": {
        const pinnedVersion = yield* admin.pinVersion(command.partnerId, command.version)
        return { partnerId: command.partnerId, pinnedVersion }
      }
      case "MerchantList": {
        const merchants = yield* admin.listMerchants({ partnerId: command.partnerId as PartnerId | undefined, mode: command.mode })
        return merchants.map((merchant) => ({ ...merchant, createdAt: iso(merchant.createdAt) }))
      }
      case "MerchantCreate": {
        const partnerId = command.partnerId as PartnerId
        // An unknown partner is refused by name before anything is written.
        yield* admin.listMerchants({ partnerId, mode: undefined })
        const merchant = yield* (yield* Merchants).create({ partnerId, mode: mode(command.sandbox) }, { merchantName: command.name })
        return { merchantId: merchant.id, partnerId: merchant.partnerId, mode: merchant.mode, name: merchant.name }
      }
      case "KeyList": {
        const keys = yield* admin.listKeys(command.partnerId as PartnerId | undefined)
        return keys.map((key) => ({ ...key, createdAt: iso(key.createdAt), revokedAt: isoOrNull(key.revokedAt) }))
      }
      case "AppList":
        return (yield* admin.listApps).map((app) => ({ ...app, createdAt: iso(app.createdAt), revokedAt: isoOrNull(app.revokedAt) }))
      case "AppRevoke": {
        if (!(yield* admin.revokeApp(command.appId))) return yield* Effect.fail(new AdminFailure(`No app ${command.appId}.`))
        return { appId: command.appId, revoked: true }
      }
      case "ReceiptList": {
        const unmatched = yield* (yield* ReceiptStore).list({ owner: "operator", after: null, limit: 100 })
        return unmatched.map(receiptView)
      }
      case "ReceiptRefund": {
        const refunded = yield* (yield* ReceiptRefunds).requestAsOperator(command.receiptId)
        return receiptView(refunded)
      }
      case "DepositSweep": {
        const asset = Caip.validateAssetId(command.asset)
        if (Result.isFailure(asset) || asset.success.chainId !== command.chainId || !isEvmAddress(command.address)) {
          return yield* Effect.fail(new AdminFailure("--asset must be a CAIP-19 token of the chain --chain, and --address an EVM address."))
        }
        const key = { chainId: command.chainId, address: command.address.toLowerCase(), asset: command.asset }
        if (!(yield* SqlDepositStore.sweepOnRequest(key))) {
          return yield* Effect.fail(new AdminFailure(`No deposit address ${command.address} on ${command.chainId}.`))
        }
        return { ...key, due: true }
      }
      case "LedgerReport": {
        const lines = yield* (yield* LedgerBalances).latestReconciliation
        return lines.map((l) => ({ ...ledgerLine(l), difference: (l.chain - l.ledger).toString(), runAt: iso(l.runAt) }))
      }
      case "LedgerAudit":
        return yield* (yield* LedgerBalances).audit
      case "LedgerOpen":
        return (yield* (yield* LedgerOpener).open(command.chainId)).map((l) => ({ ...ledgerLine(l), opened: l.opened.toString(), outcome: l.outcome }))
      case "PartnerThreshold": {
        if (!(yield* SqlDataCollectionThresholds.setThreshold(command.partnerId, command.threshold))) {
          return yield* Effect.fail(new AdminFailure(`No partner ${command.partnerId}.`))
        }
        return { partnerId: command.partnerId, dataCollectionThreshold: command.threshold }
      }
      case "PayoutRetry": {
        yield* (yield* PayoutRetries).retry(systemAccess, command.paymentId, command.kind)
        return { paymentId: command.paymentId, kind: command.kind, status: "pending" }
      }
      case "PayoutApprove": {
        const { payment, approved } = yield* (yield* PayoutApprovals).approve(systemAccess, command.paymentId, command.kind, "operator")
        const at = yield* Clock.currentTimeMillis
        const subject = `/v1/payments/${payment.id}/${command.kind}/approve`
        yield* (yield* TeamStore).record({ partnerId: payment.partnerId, mode: payment.mode, actor: "operator", action: command.kind === "refund" ? "payments.approveRefund" : "payments.approveSettlement", subject, at })
        return {
          paymentId: payment.id,
          kind: command.kind,
          status: "pending",
          approved: approved.map((p) => ({ leg: p.leg, value: p.value.toString(), reason: p.approvalRequired }))
        }
      }
      case "FactoryDeploy": {
        const deployed = yield* Chain.ContractDeployment.deployFactory(command.network).pipe(Effect.mapError(deployFailure))
        const move = deployed.previousFactory === undefined
          ? ""
          : `, and ${deployed.previousVariable}=${deployed.previousFactory} if that one is a first DepositFactory (its addresses are still swept)`
        return { ...deployed, then: `set ${deployed.variable}=${deployed.depositFactory}${move} in every process's environment` }
      }
      case "VaultDeploy": {
        const deployed = yield* Chain.ContractDeployment.deployVault(command.network).pipe(Effect.mapError(deployFailure))
        return { ...deployed, then: `set ${deployed.variable}=${deployed.subscriptionVault} in every process's environment to take subscriptions on ${deployed.network}` }
      }
      case "EscrowDeploy": {
        const deployed = yield* Chain.ContractDeployment.deployEscrow(command.network).pipe(Effect.mapError(deployFailure))
        return { ...deployed, then: `set ${deployed.variable}=${deployed.paymentEscrow} in every process's environment to take held payments on ${deployed.network}` }
      }
      case "Preflight":
        // Printed as a checklist by the CLI, before any migration: see `adminCli`.
        return yield* Effect.fail(new AdminFailure("preflight runs through npm run admin -- preflight."))
      case "ReceiptRefundRetry": {
        const receipt = yield* (yield* ReceiptRefunds).retry("operator", command.receiptId)
        return { receiptId: receipt.id, status: "pending", value: String(receipt.refund?.value) }
      }
    }
  }).pipe(
    Effect.catchTag("CredentialAdminError", (error) => Effect.fail(new AdminFailure(error.message))),
    Effect.catchTag("InvalidThreshold", (error) => Effect.fail(new AdminFailure(error.message))),
    Effect.catchTag("LedgerOpeningFailed", (error) => Effect.fail(new AdminFailure(error.message))),
    Effect.catchTags({
      PaymentNotFound: (error) => Effect.fail(new AdminFailure(error.message)),
      InvalidState: (error) => Effect.fail(new AdminFailure(error.message)),
      AlreadyRefunded: (error) => Effect.fail(new AdminFailure(error.message)),
      ParamsValidation: (error) => Effect.fail(new AdminFailure(error.message)),
      MerchantExists: (error) => Effect.fail(new AdminFailure(error.message))
    })
  )
