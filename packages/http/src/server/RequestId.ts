import { PooledRandom } from "@paygate/adapters"
import { Context } from "effect"

/** The id of the request being served: sent back as `Request-Id`, on every log line, in 500 messages. */
export const RequestId = Context.Reference<string>("@paygate/http/RequestId", { defaultValue: () => "req_unknown" })

/** A new request id: `req_` and 80 random bits in hex. */
export const newRequestId = (): string => {
  const bytes = PooledRandom.randomBytes(10)
  return `req_${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`
}
