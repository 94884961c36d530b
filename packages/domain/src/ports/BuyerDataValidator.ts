import { Context, type Effect } from "effect"
import type { JsonSchema } from "../datacollection/BuyerDataForm.ts"

/** Validates buyer data against the JSON Schema (draft 2020-12) of its form. */
export class BuyerDataValidator extends Context.Service<BuyerDataValidator, {
  /**
   * What is wrong with `data` under `schema`, one short sentence per problem, each naming the
   * field concerned and never quoting the data (it is personal); empty when the data is valid.
   */
  readonly problems: (schema: JsonSchema, data: unknown) => Effect.Effect<ReadonlyArray<string>>
}>()("@paygate/domain/BuyerDataValidator") {}
