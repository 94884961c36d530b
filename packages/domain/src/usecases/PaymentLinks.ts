import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { type MerchantNotFound, ParamsValidation, PaymentNotFound } from "../errors/DomainErrors.ts"
import { IdGenerator } from "../ids/IdGenerator.ts"
import { type CurrencyCode, currencyExponent } from "../money/Currency.ts"
import { MerchantId, type PaymentId, PaymentLinkId } from "../ids/Ids.ts"
import { type LinkState, linkCapacity, linkState, type LinkTotals, PaymentLink } from "../link/PaymentLink.ts"
import type { Merchant } from "../merchant/Merchant.ts"
import { type Page, type PageRequest, toPage } from "../paging/Page.ts"
import { Payment } from "../payment/Payment.ts"
import { MerchantRepository } from "../ports/MerchantRepository.ts"
import { PaymentLinkRepository } from "../ports/PaymentLinkRepository.ts"
import { PaymentRepository } from "../ports/PaymentRepository.ts"
import { validateFiatAmount } from "./CreateRules.ts"
import { type InvoiceInput, validateInvoice, validateTitle } from "./LinkRules.ts"
import type { PartnerAccess } from "./Merchants.ts"
import { makePaymentChanges } from "./PaymentChanges.ts"
import { Payments } from "./Payments.ts"

/** A request to create a payment link for one of the partner's merchants. */
export interface CreateLinkInput {
  readonly merchantId: string
  readonly title: string
  /** A fixed amount; or else `openAmount`, the buyer enters it. */
  readonly amount?: { readonly unit: string; readonly value: string } | undefined
  readonly openAmount?: { readonly unit: string; readonly minValue?: string | undefined; readonly maxValue?: string | undefined } | undefined
  readonly usage: string
  readonly maxPayments?: number | undefined
  readonly invoice?: InvoiceInput | undefined
  /** Unix seconds. */
  readonly expiresAt?: number | undefined
}

/** A link with what was paid through it and whether it takes payments now. */
export interface LinkView {
  readonly link: PaymentLink
  readonly totals: LinkTotals
  readonly state: LinkState
}

/** What a buyer's "Pay" got: the payment to check out, or why the link takes none now (`busy`: every allowed payment is under way). */
export type PayOutcome =
  | { readonly _tag: "Payment"; readonly paymentId: PaymentId }
  | { readonly _tag: "Closed"; readonly state: Exclude<LinkState, "open"> | "busy" }

// What a buyer types: "12", "12.5" or "12.50", at most the currency's decimals; minor units, or null.
const decimalToMinor = (text: string, exponent: number): bigint | null => {
  const match = /^([0-9]{1,15})(?:[.,]([0-9]+))?$/.exec(text)
  if (match === null || (match[2] ?? "").length > exponent) return null
  const value = BigInt(match[1]! + (match[2] ?? "").padEnd(exponent, "0"))
  return value > 0n ? value : null
}

const noTotals: LinkTotals = { payments: 0, succeeded: 0, collected: 0n }
const invalid = (message: string) => new ParamsValidation({ message })
const maxPaymentsLimit = 1_000_000

/** Payment links: create, list, (de)activate, and the buyer's visit that opens a payment. */
export class PaymentLinks extends Context.Service<PaymentLinks, {
  readonly create: (access: PartnerAccess, input: CreateLinkInput) => Effect.Effect<LinkView, ParamsValidation | MerchantNotFound>
  readonly find: (access: PartnerAccess, id: string) => Effect.Effect<LinkView, PaymentNotFound>
  readonly list: (access: PartnerAccess, input: { readonly merchantId?: string | undefined; readonly page: PageRequest }) => Effect.Effect<Page<LinkView>>
  readonly setActive: (access: PartnerAccess, id: string, active: boolean) => Effect.Effect<LinkView, PaymentNotFound>
  /** The link as its public page shows it, with its merchant (a link whose merchant is gone is not found). */
  readonly open: (id: string) => Effect.Effect<LinkView & { readonly merchant: Merchant }, PaymentNotFound>
  /** The buyer's "Pay" on visit `token`: `value` (minor units) for an open amount. */
  readonly pay: (id: string, token: string, value: string | undefined) => Effect.Effect<PayOutcome, PaymentNotFound | ParamsValidation>
}>()("@paygate/domain/PaymentLinks") {
  static readonly layer = Layer.effect(
    PaymentLinks,
    Effect.gen(function*() {
      const repo = yield* PaymentLinkRepository
      const merchants = yield* MerchantRepository
      const payments = yield* Payments
      const ids = yield* IdGenerator
      const { eventFor } = makePaymentChanges(yield* PaymentRepository, ids)
      const nowSeconds = Effect.map(Clock.currentTimeMillis, (ms) => Math.floor(ms / 1000))

      const views = (links: ReadonlyArray<PaymentLink>) =>
        Effect.gen(function*() {
          const totals = yield* repo.totals(links.map((link) => link.id))
          const now = yield* nowSeconds
          return links.map((link): LinkView => {
            const sums = totals.get(link.id) ?? noTotals
            return { link, totals: sums, state: linkState(link, sums, now) }
          })
        })
      const viewOf = (link: PaymentLink) => Effect.map(views([link]), ([view]) => view!)

      const notFound = (id: string) => new PaymentNotFound({ message: `No payment link ${id}.` })
      const load = (id: string) =>
        Schema.is(PaymentLinkId)(id)
          ? Effect.flatMap(repo.findById(id), Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
          : Effect.fail(notFound(id))
      const loadFor = (access: PartnerAccess, id: string) =>
        Effect.filterOrFail(load(id), (link) => link.partnerId === access.partnerId && link.mode === access.mode, () => notFound(id))

      // The amount rules shared by a fixed and an open amount, checked by the payment create itself
      // (currency payable in the mode, merchant active) with a payment that is never stored.
      const checkPayable = (access: PartnerAccess, merchantId: string, unit: string, value: bigint) =>
        payments.validate({ ...access, merchantId, amount: { unit, value: value.toString() }, referenceId: "link" })

      const create = Effect.fn("PaymentLinks.create")(function*(access: PartnerAccess, input: CreateLinkInput) {
        const title = yield* validateTitle(input.title)
        if ((input.amount === undefined) === (input.openAmount === undefined)) {
          return yield* invalid("Give either amount (a fixed amount) or openAmount (the buyer enters it), not both or neither.")
        }
        let currency: string
        let value: bigint | null = null
        let minValue: bigint | null = null
        let maxValue: bigint | null = null
        if (input.amount !== undefined) {
          ;({ currency, value } = yield* validateFiatAmount(input.amount))
        } else {
          const open = input.openAmount!
          const bound = (text: string | undefined) =>
            text === undefined ? Effect.succeed(null) : Effect.map(validateFiatAmount({ unit: open.unit, value: text }), (a) => a.value)
          currency = (yield* validateFiatAmount({ unit: open.unit, value: "1" })).currency
          minValue = yield* bound(open.minValue)
          maxValue = yield* bound(open.maxValue)
          if (minValue !== null && maxValue !== null && minValue > maxValue) {
            return yield* invalid("openAmount.minValue must not be above openAmount.maxValue.")
          }
        }
        if (input.usage !== "single" && input.usage !== "reusable") return yield* invalid("usage must be single or reusable.")
        if (input.maxPayments !== undefined) {
          if (input.usage === "single") return yield* invalid("maxPayments is for reusable links; a single-use link is paid once.")
          if (!Number.isSafeInteger(input.maxPayments) || input.maxPayments < 1 || input.maxPayments > maxPaymentsLimit) {
            return yield* invalid(`maxPayments must be an integer from 1 to ${maxPaymentsLimit}.`)
          }
        }
        if (input.invoice !== undefined && input.usage !== "single") {
          return yield* invalid("invoice is for single-use links (usage single).")
        }
        const invoice = input.invoice === undefined ? null : yield* validateInvoice(input.invoice, currency, value)
        const millis = yield* Clock.currentTimeMillis
        if (input.expiresAt !== undefined && (!Number.isSafeInteger(input.expiresAt) || input.expiresAt <= Math.floor(millis / 1000))) {
          return yield* invalid("expiresAt must be a Unix time in seconds, in the future.")
        }
        yield* checkPayable(access, input.merchantId, `iso4217/${currency}`, value ?? minValue ?? 1n)
        const link = new PaymentLink({
          id: yield* ids.make("paymentLink"),
          partnerId: access.partnerId,
          merchantId: input.merchantId as MerchantId,
          mode: access.mode,
          title,
          currency,
          value,
          minValue,
          maxValue,
          usage: input.usage,
          maxPayments: input.maxPayments ?? null,
          invoice,
          expiresAt: input.expiresAt ?? null,
          active: true,
          createdAt: millis,
          updatedAt: millis
        })
        yield* repo.insert(link)
        return { link, totals: noTotals, state: "open" as const }
      })

      const find = Effect.fn("PaymentLinks.find")(function*(access: PartnerAccess, id: string) {
        return yield* viewOf(yield* loadFor(access, id))
      })

      const list = Effect.fn("PaymentLinks.list")(function*(access: PartnerAccess, input: { readonly merchantId?: string | undefined; readonly page: PageRequest }) {
        const links = yield* repo.list({
          partnerId: access.partnerId,
          mode: access.mode,
          merchantId: input.merchantId as MerchantId | undefined,
          after: input.page.after,
          limit: input.page.limit + 1
        })
        const page = toPage(links, input.page.limit)
        return { data: yield* views(page.data), nextCursor: page.nextCursor }
      })

      const setActive = Effect.fn("PaymentLinks.setActive")(function*(access: PartnerAccess, id: string, active: boolean) {
        const link = yield* loadFor(access, id)
        const stored = yield* repo.setActive(link.id, active, yield* Clock.currentTimeMillis)
        return yield* viewOf(Option.getOrElse(stored, () => link))
      })

      const open = Effect.fn("PaymentLinks.open")(function*(id: string) {
        const link = yield* load(id)
        const merchant = yield* merchants.findById(link.partnerId, link.mode, link.merchantId)
        if (Option.isNone(merchant) || merchant.value.deleted) return yield* notFound(id)
        return { ...(yield* viewOf(link)), merchant: merchant.value }
      })

      const amountOf = (link: PaymentLink, text: string | undefined) =>
        Effect.gen(function*() {
          if (link.value !== null) return link.value
          if (text === undefined || text.trim() === "") return yield* invalid("Enter the amount to pay.")
          const exponent = currencyExponent(link.currency as CurrencyCode)
          const value = decimalToMinor(text.trim(), exponent)
          if (value === null) {
            return yield* invalid(`Enter the amount as a number above zero${exponent === 0 ? ", without decimals" : `, with at most ${exponent} decimals`}.`)
          }
          if ((link.minValue !== null && value < link.minValue) || (link.maxValue !== null && value > link.maxValue)) {
            return yield* invalid("The amount is outside the range this link accepts.")
          }
          return value
        })

      const pay = Effect.fn("PaymentLinks.pay")(function*(id: string, token: string, text: string | undefined) {
        const { link, state } = yield* open(id)
        if (state !== "open") return { _tag: "Closed", state } as const
        const value = yield* amountOf(link, text)
        const checked = yield* checkPayable({ partnerId: link.partnerId, mode: link.mode }, link.merchantId, `iso4217/${link.currency}`, value).pipe(
          Effect.catchTag("MerchantNotFound", () => Effect.fail(notFound(id)))
        )
        const payment = new Payment({ ...checked, referenceId: link.invoice?.reference ?? link.id, linkId: link.id }, { disableChecks: true })
        const outcome = yield* repo.openVisit({
          linkId: link.id,
          token,
          capacity: linkCapacity(link),
          payment,
          events: [yield* eventFor("payment.created", payment, {})]
        }, yield* Clock.currentTimeMillis)
        switch (outcome._tag) {
          case "Existing":
          case "Created":
            return { _tag: "Payment", paymentId: outcome.paymentId } as const
          case "Inactive":
            return { _tag: "Closed", state: "inactive" } as const
          case "Full": {
            // Full because paid out, or because every allowed payment is still under way.
            const again = yield* viewOf(link)
            return { _tag: "Closed", state: again.state === "open" ? "busy" : again.state } as const
          }
        }
      })

      return PaymentLinks.of({ create, find, list, setActive, open, pay })
    })
  )
}
