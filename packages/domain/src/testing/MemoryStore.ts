import { Effect, Layer, Option } from "effect"
import type { EventId, PaymentId } from "../ids/Ids.ts"
import { compareCreation, isAfterCursor } from "../paging/Page.ts"
import type { OutboxEvent } from "../payment/OutboxEvent.ts"
import type { Payment } from "../payment/Payment.ts"
import { EventOutbox } from "../ports/EventOutbox.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"

/** The state behind the in-memory repository, exposed so tests can inspect what was written. */
export interface MemoryStore {
  readonly payments: Map<PaymentId, Payment>
  readonly events: Array<OutboxEvent>
  readonly completed: Set<EventId>
}

/** A fresh, empty store. */
export const makeMemoryStore = (): MemoryStore => ({ payments: new Map(), events: [], completed: new Set() })

/**
 * In-memory {@link PaymentRepository} and {@link EventOutbox} for unit tests. Each method runs
 * synchronously, so it is atomic with respect to other fibers, like a database transaction.
 */
export const layerMemory = (store: MemoryStore = makeMemoryStore()): Layer.Layer<PaymentRepository | EventOutbox> =>
  Layer.mergeAll(
    Layer.succeed(PaymentRepository, PaymentRepository.of({
      insert: (payment, events) =>
        Effect.sync(() => {
          if (store.payments.has(payment.id)) throw new Error(`duplicate payment ${payment.id}`)
          store.payments.set(payment.id, payment)
          store.events.push(...events)
        }),
      findById: (id) => Effect.sync(() => Option.fromNullishOr(store.payments.get(id))),
      update: (next, events) =>
        Effect.sync(() => {
          const stored = store.payments.get(next.id)
          if (stored === undefined || stored.stateVersion !== next.stateVersion - 1) return false
          store.payments.set(next.id, next)
          store.events.push(...events)
          return true
        }),
      list: (q) =>
        Effect.sync(() =>
          [...store.payments.values()]
            .filter((p) =>
              p.partnerId === q.partnerId && p.mode === q.mode &&
              (q.merchantId === undefined || p.merchantId === q.merchantId) &&
              (q.statuses === undefined || q.statuses.length === 0 || q.statuses.includes(p.status)) &&
              (q.referenceId === undefined || p.referenceId === q.referenceId) &&
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
      complete: (id) => Effect.sync(() => void store.completed.add(id))
    }))
  )
