import { Context, type Effect } from "effect"

/** A host name could not be resolved. */
export interface ResolveFailure {
  readonly _tag: "ResolveFailure"
  readonly message: string
}

/** Name resolution, for the SSRF guard: every address a host name resolves to (A and AAAA). */
export class HostResolver extends Context.Service<HostResolver, {
  readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>, ResolveFailure>
}>()("@paygate/domain/HostResolver") {}
