import { Schema } from "effect"
import { PartnerId } from "../ids/Ids.ts"

/** A partner account: owns merchants, keys and webhooks; pinned to a stable API version. */
export class Partner extends Schema.Class<Partner>("paygate/Partner")({
  id: PartnerId,
  name: Schema.String,
  /** The stable `Svc-Version` used when a request sends none (API rules §3). */
  pinnedVersion: Schema.String,
  /** Unix milliseconds. */
  createdAt: Schema.Int
}) {}
