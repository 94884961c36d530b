import type { Server } from "./processes.ts"

/** What the loads can use: the servers, a credential, a merchant, payments to read. */
export interface BenchContext {
  readonly runId: string
  /** The database the scenario's systems run on (for `npm run admin`). */
  readonly databaseUrl: string
  readonly service: Server
  /** The framework floor (`floor.ts`). */
  readonly floor: Server
  /** The raw baseline (`baseline.ts`). */
  readonly baseline: Server
  readonly apiKey: string
  readonly partnerId: string
  readonly merchantId: string
  /** Payments created through the service before the rounds, read by the status loads. */
  readonly paymentIds: ReadonlyArray<string>
  /** A cursor deep into the partner's payment listing (the data-size scenarios). */
  readonly listCursor?: string | undefined
  /** Paths of the service's OpenAPI document. */
  readonly servedPaths: ReadonlySet<string>
}
