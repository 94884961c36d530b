import { Effect, Layer, Option } from "effect"
import type { EventId, PaymentId } from "../ids/Ids.ts"
import { compareCreation, isAfterCursor } from "../paging/Page.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Payment } from "../payment/Payment.ts"
import { EventOutbox } from "../ports/EventOutbox.ts"
import { DuplicateCommitment, PaymentRepository } from "../ports/PaymentRepository.ts"

/** The state behind the in-memory repository, exposed so tests can inspect what was written. */
export interface MemoryStore {
  readonly payments: Map<PaymentId, Payment>
  readonly events: Array<OutboxEvent>
  readonly completed: Set<EventId>
}

// What the SQL adapter's unique indexes cover: (asset, payer, nonce) of an authorization, and a transfer:
// (asset, transaction, deposit address, reference or authorization nonce).
const commitmentKeys = (payment: Payment): ReadonlyArray<string> => {
  const c = payment.commitment
  if (c === null) return []
  const transfer = [c.asset, c.txHash?.toLowerCase(), c.recipient?.toLowerCase() ?? "", (c.reference ?? c.authorization?.nonce ?? "").toLowerCase()]
  return [
    ...(c.authorization === null ? [] : [`auth ${c.asset} ${c.account} ${c.authorization.nonce}`]),
    ...(c.txHash === null ? [] : [`tx ${transfer.join(" ")}`])
  ]
}

/** A fresh, empty store. */
export const makeMemoryStore = (): MemoryStore => ({
  payments: new Map(),
  events: [],
  completed: new Set()
})

/**
 * In-memory {@link PaymentRepository} and {@link EventOutbox} for unit tests. Each method runs
 * synchronously, so it is atomic with respect to other fibers, like a database transaction.
 */
export const layerMemory = (store: MemoryStore = makeMemoryStore()): Layer.Layer<PaymentRepository | EventOutbox> =>
  Layer.mergeAll(
    Layer.succeed(PaymentRepository, PaymentRepository.of({
      insert: (payment, events) =>
        Effect.suspend(() => {
          if (store.payments.has(payment.id)) return Effect.die(new Error(`duplicate payment ${payment.id}`))
          store.payments.set(payment.id, payment)
          store.events.push(...events)
          return Effect.void
        }),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(store.payments.get(id))),
      update: (next, events) =>
        Effect.suspend(() => {
          const stored = store.payments.get(next.id)
          if (stored === undefined || stored.stateVersion !== next.stateVersion - 1) return Effect.succeed(false)
          const taken = commitmentKeys(next).some((key) =>
            [...store.payments.values()].some((other) => other.id !== next.id && commitmentKeys(other).includes(key))
          )
          if (taken) return Effect.fail(new DuplicateCommitment({ message: "The authorization or transaction is already used." }))
          store.payments.set(next.id, next)
          store.events.push(...events)
          return Effect.succeed(true)
        }),
      list: (q) =>
        Effect.sync(() =>
          [...store.payments.values()]
            .filter((p) =>
              p.partnerId === q.partnerId && p.mode === q.mode &&
              (q.merchantId === undefined || p.merchantId === q.merchantId) &&
              (q.statuses === undefined || q.statuses.length === 0 || q.statuses.includes(p.status)) &&
              (q.referenceId === undefined || p.referenceId === q.referenceId) &&
              (q.linkId === undefined || p.linkId === q.linkId) &&
              (q.createdFrom === undefined || p.createdAt >= q.createdFrom) &&
              (q.createdBefore === undefined || p.createdAt < q.createdBefore) &&
              isAfterCursor(p, q.after, q.order)
            )
            .sort((a, b) => (q.order === "asc" ? compareCreation(a, b) : compareCreation(b, a)))
            .slice(0, q.limit)
        )
    })),
    Layer.succeed(EventOutbox, EventOutbox.of({
      claim: (limit) => Effect.sync(() => store.events.filter((e) => !store.completed.has(e.id)).slice(0, limit)),
      // The memory store keeps no endpoints: every event goes through the dispatch.
      completeUnaddressed: () => Effect.succeed(0),
      complete: (id) => Effect.sync(() => void store.completed.add(id))
    }))
  )
