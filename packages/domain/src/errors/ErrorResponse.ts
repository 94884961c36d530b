import { Schema } from "effect"
import { ErrorCode } from "./ErrorCode.ts"

/** The body of every error response of every API: `{"code", "message"}` (API rules §1). */
export class ErrorResponse extends Schema.Class<ErrorResponse>("paygate/ErrorResponse")({
  code: ErrorCode,
  message: Schema.String
}) {}
