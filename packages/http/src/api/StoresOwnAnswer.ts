import { Context } from "effect"

/**
 * Marks a POST whose handler stores its idempotent answer in its own single write (the payment
 * creates: the payment, its outbox event and the answer in one statement). The pipeline then runs
 * it as it is; every other POST with an `Idempotency-Key` runs in one transaction with its answer
 * (`IdempotencyStore.completing`), which would only add a `BEGIN` and a `COMMIT` here.
 */
export class StoresOwnAnswer extends Context.Service<StoresOwnAnswer, boolean>()("@paygate/http/StoresOwnAnswer") {}
