import { Context } from "effect"

/** The id of the request being served: sent back as `Request-Id`, on every log line, in 500 messages. */
export const RequestId = Context.Reference<string>("@paygate/http/RequestId", { defaultValue: () => "req_unknown" })

/**
 * Where request ids' random bits come from: `size` secure random bytes, drawn synchronously on
 * every request (the host gives a pooled source: a system call per request shows in its CPU).
 */
export class RequestIdBytes extends Context.Service<RequestIdBytes, (size: number) => Uint8Array>()("@paygate/http/RequestIdBytes") {}

/** A new request id from `randomBytes`: `req_` and 80 random bits in hex. */
export const newRequestId = (randomBytes: RequestIdBytes["Service"]): string => {
  const bytes = randomBytes(10)
  return `req_${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex")}`
}
