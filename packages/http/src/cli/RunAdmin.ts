import { CredentialAdmin, SqlDataCollectionThresholds } from "@paygate/adapters"
import type { Mode, PartnerId } from "@paygate/domain"
import { Effect } from "effect"
import type { AdminCommand } from "./AdminCommand.ts"

/** Why an operator command failed, in words for the operator. */
export class AdminFailure extends Error {}

const mode = (sandbox: boolean): Mode => (sandbox ? "sandbox" : "live")

/** Runs one command and answers the JSON object to print. */
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
        const key = yield* admin.createApiKey({
          kind: "partner",
          partnerId: command.partnerId as PartnerId,
          mode: mode(command.sandbox)
        })
        return { keyId: key.keyId, apiKey: key.apiKey }
      }
      case "KeyRevoke": {
        if (!(yield* admin.revokeKey(command.keyId))) return yield* Effect.fail(new AdminFailure(`No key ${command.keyId}.`))
        return { keyId: command.keyId, revoked: true }
      }
      case "AppCreate": {
        const app = yield* admin.createApp({ name: command.name, mode: mode(command.sandbox) })
        return { appId: app.appId, walletApiKey: app.walletApiKey }
      }
      case "PartnerThreshold": {
        if (!(yield* SqlDataCollectionThresholds.setThreshold(command.partnerId, command.threshold))) {
          return yield* Effect.fail(new AdminFailure(`No partner ${command.partnerId}.`))
        }
        return { partnerId: command.partnerId, dataCollectionThreshold: command.threshold }
      }
    }
  }).pipe(
    Effect.catchTag("CredentialAdminError", (error) => Effect.fail(new AdminFailure(error.message))),
    Effect.catchTag("InvalidThreshold", (error) => Effect.fail(new AdminFailure(error.message)))
  )
