import { Context, type Effect } from "effect"

/** Screens buyer accounts against sanctions lists before they can pay. */
export class SanctionsScreening extends Context.Service<SanctionsScreening, {
  /** Whether the CAIP-10 account is sanctioned. */
  readonly isSanctioned: (account: string) => Effect.Effect<boolean>
}>()("@paygate/domain/SanctionsScreening") {}
