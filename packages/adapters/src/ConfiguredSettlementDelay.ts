/**
 * The domain's `SettlementDelay` from `SETTLEMENT_DESTINATION_DELAY_MS` and
 * `SANDBOX_SETTLEMENT_DESTINATION_DELAY_MS` (see docs/configuration.md).
 *
 * @module
 */
import { SettlementDelay } from "@paygate/domain"
import { type Config, Layer } from "effect"
import * as Configuration from "./Configuration.ts"

/** `SettlementDelay` read from the environment. */
export const layer: Layer.Layer<never, Config.ConfigError> = Layer.effect(SettlementDelay, Configuration.settlementDestinationDelay)
