/**
 * Reading webhook endpoints from their rows, secrets decrypted: shared by the endpoint repository
 * and the delivery queue (a claimed delivery carries its endpoint).
 *
 * @module
 */
import { WebhookEndpoint } from "@paygate/domain"
import { Effect, Redacted, Schema } from "effect"
import { fromJsonColumn, toInt } from "../internal/Rows.ts"
import type { WebhookSecretCipher } from "./SecretCipher.ts"

const decodeEndpoint = Schema.decodeUnknownSync(WebhookEndpoint)

/** The columns selected for an endpoint. */
export const endpointSelect = "id, partner_id, mode, url, events, merchant_id, secret_ciphertext, status, api_version, created_at"

/**
 * Decodes a selected endpoint row, decrypting its secret. A secret that does not decrypt (the key
 * changed or was lost) is logged and read as empty: deliveries to that endpoint then fail
 * without being sent, and the rest of the service goes on.
 */
export const endpointFromRow = (cipher: WebhookSecretCipher["Service"]) => (row: Record<string, unknown>) =>
  cipher.decrypt(String(row.id), String(row.secret_ciphertext)).pipe(
    Effect.catchTag("SecretDecryptionError", (error) => Effect.as(Effect.logError(error.message), Redacted.make(""))),
    Effect.map((secret) =>
    decodeEndpoint({
      id: row.id,
      partnerId: row.partner_id,
      mode: row.mode,
      url: row.url,
      events: fromJsonColumn(row.events),
      merchantId: row.merchant_id,
      secret,
      status: row.status,
      apiVersion: row.api_version,
      createdAt: toInt(row.created_at)
    }))
  )
