import { Context, type Effect } from "effect"
import type { AlreadyRefunded, PaymentNotFound, PaymentNotSucceeded } from "../errors/ApiErrors.ts"
import type { Refund } from "../refund/Refund.ts"
import type { Access } from "./Access.ts"

/** Full refunds of succeeded payments (contract §8); the worker executes them on chain. */
export class Refunds extends Context.Service<Refunds, {
  /** Requests the refund: not succeeded → `payment_not_succeeded`; a second → `already_refunded`. */
  readonly request: (access: Access, paymentId: string) => Effect.Effect<Refund, PaymentNotFound | PaymentNotSucceeded | AlreadyRefunded>
}>()("@paygate/domain/Refunds") {}
