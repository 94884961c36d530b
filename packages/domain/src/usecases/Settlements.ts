import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { type AssetId, formatAccountId, formatAssetId, parseAccountId, parseAssetId, sameChain } from "../caip/index.ts"
import { InvalidState, MerchantNotFound, ParamsValidation } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { type EventId, MerchantId, SettlementId } from "../ids/Ids.ts"
import { CryptoSettlement } from "../merchant/CryptoSettlement.ts"
import { SettlementDelay, settlementDelayOf } from "../merchant/SettlementDelay.ts"
import {
  type SettlementDestinationChange,
  settlementDestinationChanged,
  SettlementDestinationEvent
} from "../merchant/SettlementDestinationEvent.ts"
import type { Mode } from "../payment/Payment.ts"
import { unpayableAccount } from "../payout/UnpayableAccount.ts"
import { AssetCatalog, type PayableAsset } from "../ports/AssetCatalog.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"
import { assetMode, NetworkModes, type NetworkModesShape, offNetwork } from "../ports/NetworkModes.ts"
import { SettlementRepository } from "../ports/SettlementRepository.ts"
import { missingMerchant } from "./MissingMerchant.ts"
import type { PartnerAccess } from "./Merchants.ts"

/** One `{asset, destination}` entry of `POST /v1/merchants/{id}/settlements/crypto`. */
export interface SettlementEntry {
  readonly asset: string
  readonly destination: string
}

const isMerchantId = Schema.is(MerchantId)
const isSettlementId = Schema.is(SettlementId)
const maxEntries = 50

const settlementNotFound = (merchantId: MerchantId, id: string) =>
  new MerchantNotFound({ message: `No crypto settlement ${id} for merchant ${merchantId}.` })

/**
 * A sandbox merchant's funds never settle on a real network, nor a live one's on a test network.
 * A chain the service is not configured on never receives a payment, so nothing settles there.
 */
const sameMode = (asset: AssetId, mode: Mode, modes: NetworkModesShape, what: string) => {
  const network = assetMode(modes, asset)
  return network === undefined || network === mode ? Effect.void : Effect.fail(new ParamsValidation({ message: offNetwork(mode, what) }))
}

// The reasons a destination could never receive a merchant's funds, as the rest of a message.
const unpayableReasons = {
  zero: "is the zero address: nothing sent there can ever be spent.",
  collection: "is this service's own collection address: a settlement sent there would reach no merchant.",
  token: "is a token contract: tokens sent there are lost."
} as const

/** `params_validation` when `destination` (CAIP-10, canonical) is an account no payout may go to. */
const payableDestination = (destination: string, assets: ReadonlyArray<PayableAsset>, what: string) => {
  const unpayable = unpayableAccount(assets, destination.slice(destination.lastIndexOf(":") + 1))
  return unpayable === undefined ? Effect.void : Effect.fail(new ParamsValidation({ message: `${what} ${unpayableReasons[unpayable]}` }))
}

/**
 * Checks a registration's entries: 1–50 of them, each a CAIP-19 asset with a CAIP-10 destination
 * on the asset's chain, not on a configured network of the other mode, and not an account no payout
 * may go to (`params_validation` naming the entry). Answers them in canonical form.
 */
const validateEntries = Effect.fnUntraced(function*(
  entries: ReadonlyArray<SettlementEntry>,
  mode: Mode,
  modes: NetworkModesShape,
  assets: ReadonlyArray<PayableAsset>
) {
  if (entries.length < 1 || entries.length > maxEntries) {
    return yield* new ParamsValidation({ message: `settlements must have 1 to ${maxEntries} entries.` })
  }
  const valid: Array<{ readonly asset: string; readonly destination: string }> = []
  for (const [index, entry] of entries.entries()) {
    const asset = formatAssetId(yield* parseAssetId(entry.asset, `settlements[${index}].asset`))
    const destination = formatAccountId(yield* parseAccountId(entry.destination, `settlements[${index}].destination`))
    if (!sameChain(asset, destination)) {
      return yield* new ParamsValidation({
        message: `settlements[${index}].destination is not on the chain of settlements[${index}].asset.`
      })
    }
    yield* sameMode(asset, mode, modes, `settlements[${index}].asset ${asset}`)
    yield* payableDestination(destination, assets, `settlements[${index}].destination`)
    valid.push({ asset, destination })
  }
  return valid
})

/** The outbox event of a destination's change, made by `access` at `millis`. */
const changeEvent = (
  access: PartnerAccess,
  id: EventId,
  millis: number,
  settlement: CryptoSettlement,
  change: SettlementDestinationChange,
  previousDestination: string | null = null
) =>
  new SettlementDestinationEvent({
    id,
    type: settlementDestinationChanged,
    partnerId: access.partnerId,
    mode: access.mode,
    settlement,
    change,
    previousDestination,
    createdAt: Math.floor(millis / 1000)
  })

/** The first entry whose asset an earlier entry already names, as `invalid_state`. */
const repeatedAsset = (entries: ReadonlyArray<{ readonly asset: string }>): InvalidState | undefined => {
  for (const [index, entry] of entries.entries()) {
    const first = entries.findIndex((other) => other.asset === entry.asset)
    if (first !== index) return new InvalidState({ message: `settlements[${index}].asset repeats settlements[${first}].asset.` })
  }
  return undefined
}

/**
 * Crypto settlement destinations of a merchant (API rules §11). Registration is all-or-nothing;
 * asset and destination must share a CAIP-2 chain; a second destination for an asset is
 * `invalid_state`. The contract has no settlement-specific not-found code, so an unknown
 * settlement id is a 404 `merchant_not_found` whose message names the settlement.
 *
 * Decisions: changes (register, change, remove) need an active merchant; `list` also answers for
 * a soft-deleted merchant, like reading the merchant itself does. Assets and destinations are
 * stored in canonical form (EIP-55 checksummed on `eip155`). The request is checked before the
 * merchant is looked up (API rules §1 order: params, then resource, then state rules).
 *
 * A destination added, or changed to another account, is used only from `usableFrom` (now plus the
 * mode's `SettlementDelay`): payments succeeded until then wait at the collection address. Changing
 * to the same account keeps its time (and is no change: nothing is written); removing takes effect at once.
 *
 * Each destination added, changed to another account or removed commits with one
 * `settlement_destination.changed` outbox event, so the owner's endpoints hear of it within the delay.
 * A change is a compare-and-set on the destination it read: a concurrent change or removal makes it
 * read again, so an event's `previousDestination` is always the one it replaced.
 */
export class Settlements extends Context.Service<Settlements, {
  readonly register: (
    access: PartnerAccess,
    merchantId: string,
    entries: ReadonlyArray<SettlementEntry>
  ) => Effect.Effect<ReadonlyArray<CryptoSettlement>, MerchantNotFound | ParamsValidation | InvalidState>
  readonly list: (access: PartnerAccess, merchantId: string) => Effect.Effect<ReadonlyArray<CryptoSettlement>, MerchantNotFound>
  readonly changeDestination: (
    access: PartnerAccess,
    merchantId: string,
    id: string,
    destination: string
  ) => Effect.Effect<CryptoSettlement, MerchantNotFound | ParamsValidation>
  readonly remove: (access: PartnerAccess, merchantId: string, id: string) => Effect.Effect<void, MerchantNotFound>
}>()("@paygate/domain/Settlements") {
  /** The use cases over the settlement and merchant repositories and the {@link IdGenerator} in context. */
  static readonly layer = Layer.effect(
    Settlements,
    Effect.gen(function*() {
      const repo = yield* SettlementRepository
      const merchants = yield* MerchantRepository
      const ids = yield* IdGenerator
      const modes = yield* NetworkModes
      const delay = yield* SettlementDelay
      const catalog = yield* AssetCatalog

      const loadMerchant = Effect.fnUntraced(function*(access: PartnerAccess, id: string, activeOnly: boolean) {
        const found = isMerchantId(id) ? yield* merchants.findById(access.partnerId, access.mode, id) : Option.none()
        if (Option.isNone(found) || found.value.partnerId !== access.partnerId || found.value.mode !== access.mode) {
          return yield* yield* missingMerchant(merchants, access.partnerId, access.mode, id)
        }
        if (activeOnly && found.value.deleted) return yield* new MerchantNotFound({ message: `No merchant ${id}.` })
        return found.value.id
      })

      const loadSettlement = Effect.fnUntraced(function*(merchantId: MerchantId, id: string) {
        const found = isSettlementId(id) ? yield* repo.findById(merchantId, id) : Option.none()
        if (Option.isNone(found)) return yield* settlementNotFound(merchantId, id)
        return found.value
      })

      const register = Effect.fn("Settlements.register")(
        function*(access: PartnerAccess, merchantId: string, entries: ReadonlyArray<SettlementEntry>) {
          const valid = yield* validateEntries(entries, access.mode, modes, catalog.all)
          const owner = yield* loadMerchant(access, merchantId, true)
          const repeated = repeatedAsset(valid)
          if (repeated !== undefined) return yield* repeated
          for (const [index, entry] of valid.entries()) {
            const existing = yield* repo.findByAsset(owner, entry.asset)
            if (Option.isSome(existing)) {
              return yield* new InvalidState({
                message: `settlements[${index}].asset ${entry.asset} already has a destination (${existing.value.id}); change or remove it instead.`
              })
            }
          }
          const millis = yield* Clock.currentTimeMillis
          const usableFrom = millis + settlementDelayOf(delay, access.mode)
          const settlements: Array<CryptoSettlement> = []
          const events: Array<SettlementDestinationEvent> = []
          for (const entry of valid) {
            const settlement = new CryptoSettlement({
              id: yield* ids.make("settlement"),
              merchantId: owner,
              ...entry,
              createdAt: millis,
              updatedAt: millis,
              usableFrom
            })
            settlements.push(settlement)
            events.push(changeEvent(access, yield* ids.make("event"), millis, settlement, "added"))
          }
          // The store checks uniqueness again atomically: a concurrent registration still fails as a whole.
          yield* repo.insertAll(settlements, events)
          return settlements
        }
      )

      const list = Effect.fn("Settlements.list")(function*(access: PartnerAccess, merchantId: string) {
        return yield* repo.list(yield* loadMerchant(access, merchantId, false))
      })

      const changeDestination = Effect.fn("Settlements.changeDestination")(
        function*(access: PartnerAccess, merchantId: string, id: string, destination: string) {
          const account = formatAccountId(yield* parseAccountId(destination, "destination"))
          const owner = yield* loadMerchant(access, merchantId, true)
          for (;;) {
            const current = yield* loadSettlement(owner, id)
            // Stored assets are canonical CAIP-19 ids: `register` wrote them through `formatAssetId`.
            if (!sameChain(current.asset as AssetId, account)) {
              return yield* new ParamsValidation({ message: `destination is not on the chain of the settlement's asset ${current.asset}.` })
            }
            yield* sameMode(current.asset as AssetId, access.mode, modes, `The settlement's asset ${current.asset}`)
            yield* payableDestination(account, catalog.all, "destination")
            if (account === current.destination) return current
            const millis = yield* Clock.currentTimeMillis
            const next = new CryptoSettlement({
              ...current,
              destination: account,
              updatedAt: Math.max(millis, current.updatedAt),
              usableFrom: millis + settlementDelayOf(delay, access.mode)
            })
            const event = changeEvent(access, yield* ids.make("event"), millis, next, "changed", current.destination)
            if (yield* repo.update(next, current.destination, event)) return next
          }
        }
      )

      const remove = Effect.fn("Settlements.remove")(function*(access: PartnerAccess, merchantId: string, id: string) {
        const owner = yield* loadMerchant(access, merchantId, true)
        if (!isSettlementId(id)) return yield* settlementNotFound(owner, id)
        const eventId = yield* ids.make("event")
        const millis = yield* Clock.currentTimeMillis
        const removed = yield* repo.remove(owner, id, (settlement) => changeEvent(access, eventId, millis, settlement, "removed"))
        if (!removed) return yield* settlementNotFound(owner, id)
      })

      return Settlements.of({ register, list, changeDestination, remove })
    })
  )
}

