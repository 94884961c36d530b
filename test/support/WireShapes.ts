/**
 * Decoders against the API's documented wire shapes (`Wire` of `@paygate/http`, the OpenAPI
 * components), for the tests of packages that produce those values without knowing the wire
 * (the worker's webhook bodies, the adapters' wallet actions): an extra or missing field fails.
 */
import { Wire } from "@paygate/http"
import { Schema } from "effect"

/** A payment event's body (`WebhookEnvelope`). */
export const decodePaymentEnvelope = Schema.decodeUnknownSync(Wire.WebhookEnvelope, { onExcessProperty: "error" })

/** A `settlement_destination.changed` body (`SettlementDestinationWebhookEnvelope`). */
export const decodeSettlementDestinationEnvelope = Schema.decodeUnknownSync(Wire.SettlementDestinationEnvelope, { onExcessProperty: "error" })

/** A wallet action as the gateway's options carry it (`Action`). */
export const decodeAction = Schema.decodeUnknownSync(Wire.Action)
