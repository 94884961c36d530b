import { Schema } from "effect"
import { ErrorCode } from "./ErrorCode.ts"

/** The body of every error answer of every API: `{"code", "message"}` (contract §2). */
export class ErrorResponse extends Schema.Class<ErrorResponse>("paygate/ErrorResponse")({
  code: ErrorCode,
  message: Schema.String
}) {}
