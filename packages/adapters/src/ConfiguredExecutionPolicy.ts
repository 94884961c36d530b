/**
 * The domain's `ExecutionPolicy` from `EXECUTOR_DROPPED_RESEND_MS` when set; else the domain's default.
 *
 * @module
 */
import { ExecutionPolicy } from "@paygate/domain"
import { Effect, Layer, Option } from "effect"
import * as Configuration from "./Configuration.ts"

export const layer = Layer.unwrap(
  Effect.map(Configuration.executorDroppedResendMs, (configured) =>
    Option.match(configured, {
      onNone: () => Layer.empty,
      onSome: (droppedResendAfterMs) => Layer.succeed(ExecutionPolicy, { droppedResendAfterMs })
    }))
)
