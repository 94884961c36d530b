import { Context } from "effect"

/** The id of the request being served: sent back as `Request-Id`, on every log line, in 500 messages. */
export const RequestId = Context.Reference<string>("@paygate/http/RequestId", { defaultValue: () => "req_unknown" })
