import { Context, Effect, Layer, Option, Redacted, Result } from "effect"
import { parseAccountId } from "../caip/AccountId.ts"
import { buyerDataForm, type BuyerData, buyerDataFromFields } from "../datacollection/BuyerDataForm.ts"
import type { CollectedData } from "../datacollection/CollectedData.ts"
import { defaultDataCollectionThreshold, reachesThreshold } from "../datacollection/DataCollectionThreshold.ts"
import {
  type InvalidState,
  ParamsValidation,
  type PaymentExpired,
  type PaymentNotFound,
  SanctionedUser
} from "../errors/DomainErrors.ts"
import { type CurrencyCode, currencyExponent } from "../money/Currency.ts"
import type { Payment } from "../payment/Payment.ts"
import { statusAt } from "../payment/StatusMachine.ts"
import { BuyerDataStore } from "../ports/BuyerDataStore.ts"
import { BuyerDataValidator } from "../ports/BuyerDataValidator.ts"
import { DataCollectionThresholds } from "../ports/DataCollectionThresholds.ts"
import { SanctionsScreening } from "../ports/SanctionsScreening.ts"
import type { CollectData } from "../datacollection/CollectData.ts"
import type { Access } from "./Access.ts"
import { DataCollectionPage } from "./DataCollectionPage.ts"
import { notWaiting, nowSeconds } from "./PaymentChanges.ts"
import { Payments } from "./Payments.ts"
import { traced } from "./Traced.ts"

const notCollected = () => new ParamsValidation({ message: "This payment does not collect buyer data." })

/**
 * Buyer data collection (travel rule, API rules §10). A payment at or above its partner's threshold
 * (default {@link defaultDataCollectionThreshold} in the payment's currency) needs valid buyer data
 * from the paying account before a confirm: until then each of that account's options carries
 * the form (`collectData`). The data comes from the data collection page ({@link DataCollection.submit})
 * or with the confirm (`collectedData`); it is validated against the form's JSON Schema and stored
 * encrypted. Nothing of it is logged.
 */
export class DataCollection extends Context.Service<DataCollection, {
  /** Whether `payment` reaches its partner's threshold, so that whoever pays it owes buyer data. */
  readonly needsData: (payment: Payment) => Effect.Effect<boolean>
  /**
   * The form each of `accounts` (CAIP-10, normalized) still has to fill in for `payment`; accounts
   * that need nothing are absent.
   */
  readonly pendingForms: (payment: Payment, accounts: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, CollectData>>
  /**
   * The data collection page's submission: `data` of `account` for a payment that waits for the
   * buyer and needs data; replaces what the account submitted before.
   */
  readonly submit: (
    access: Access,
    paymentId: string,
    account: string,
    data: BuyerData
  ) => Effect.Effect<void, ParamsValidation | PaymentNotFound | PaymentExpired | InvalidState | SanctionedUser>
  /**
   * The confirm's check: passes when `payment` needs no data, when `account` already provided
   * valid data, or when `collectedData` is valid (it is then stored); else `params_validation`.
   */
  readonly ensureProvided: (
    payment: Payment,
    account: string,
    collectedData: CollectedData | null
  ) => Effect.Effect<void, ParamsValidation>
}>()("@paygate/domain/DataCollection") {
  /** Data collection over the ports in context. */
  static readonly layer = Layer.effect(
    DataCollection,
    Effect.gen(function*() {
      const thresholds = yield* DataCollectionThresholds
      const store = yield* BuyerDataStore
      const validator = yield* BuyerDataValidator
      const screening = yield* SanctionsScreening
      const payments = yield* Payments
      const page = yield* DataCollectionPage
      const form = buyerDataForm

      const needsData = Effect.fnUntraced(function*(payment: Payment) {
        const threshold = Option.getOrElse(yield* thresholds.thresholdOf(payment.partnerId), () => defaultDataCollectionThreshold)
        return reachesThreshold(payment.value, currencyExponent(payment.currency as CurrencyCode), threshold)
      })

      const formFor = (payment: Payment, account: string): CollectData => ({
        fields: form.fields,
        schema: form.schema,
        url: `${page.url}?paymentId=${encodeURIComponent(payment.id)}&account=${encodeURIComponent(account)}`
      })

      // Validates and stores; the message names the failing fields, never their values.
      const validateAndSave = Effect.fnUntraced(function*(payment: Payment, account: string, data: BuyerData) {
        const problems = yield* validator.problems(form.schema, data)
        if (problems.length > 0) {
          return yield* new ParamsValidation({ message: `Buyer data is invalid: ${problems.join("; ")}.` })
        }
        yield* store.save(payment.id, account, Redacted.make(data))
      })

      const pendingForms = Effect.fnUntraced(function*(payment: Payment, accounts: ReadonlyArray<string>) {
        if (!(yield* needsData(payment))) return new Map<string, CollectData>()
        const provided = yield* store.providedBy(payment.id)
        return new Map(accounts.filter((account) => !provided.has(account)).map((account) => [account, formFor(payment, account)]))
      }, traced("DataCollection.pendingForms"))

      const submit = Effect.fn("DataCollection.submit")(function*(
        access: Access,
        paymentId: string,
        account: string,
        data: BuyerData
      ) {
        const { address, chainId } = yield* parseAccountId(account, "account")
        const payment = yield* payments.find(access, paymentId)
        const now = yield* nowSeconds
        if (statusAt(payment, now) !== "requires_action") return yield* notWaiting(payment, now)
        const normalized = `${chainId}:${address}`
        if (yield* screening.isSanctioned(normalized)) {
          return yield* new SanctionedUser({ message: "This account cannot make payments." })
        }
        if (!(yield* needsData(payment))) return yield* notCollected()
        yield* validateAndSave(payment, normalized, data)
      })

      const ensureProvided = Effect.fnUntraced(function*(
        payment: Payment,
        account: string,
        collectedData: CollectedData | null
      ) {
        if (!(yield* needsData(payment))) return
        if ((yield* store.providedBy(payment.id)).has(account)) return
        if (collectedData === null) {
          return yield* new ParamsValidation({
            message: "Buyer data is required for this payment: submit it on the data collection page " +
              "(the option's collectData.url) or send it as collectedData with the confirm."
          })
        }
        const data = buyerDataFromFields(form.schema, collectedData.fields)
        if (Result.isFailure(data)) return yield* new ParamsValidation({ message: data.failure })
        yield* validateAndSave(payment, account, data.success)
      }, traced("DataCollection.ensureProvided"))

      return DataCollection.of({ needsData, pendingForms, submit, ensureProvided })
    })
  )
}
