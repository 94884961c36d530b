import { Context, type Effect } from "effect"

/** Whether the service can take traffic: the database answers and its migrations are applied. */
export class Readiness extends Context.Service<Readiness, {
  /** The number of applied migrations, or why the service is not ready. */
  readonly check: Effect.Effect<number, string>
}>()("@paygate/http/Readiness") {}
