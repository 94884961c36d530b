import { Effect } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"
import { Invoice, InvoiceLine } from "../link/PaymentLink.ts"
import { validateFiatAmount, validateReferenceId } from "./CreateRules.ts"

/** An invoice as a create request carries it (before validation). */
export interface InvoiceInput {
  readonly reference: string
  readonly dueDate?: string | undefined
  readonly buyerEmail?: string | undefined
  readonly lines?: ReadonlyArray<{ readonly description: string; readonly quantity: number; readonly unitValue: string }> | undefined
}

const invalid = (message: string) => new ParamsValidation({ message })

/** Text a page shows: no control characters and no lone surrogates, 1 to `max` characters; trimmed. */
export const shownText = (name: string, text: string, max: number) =>
  text.trim().length === 0 || text.length > max || !text.isWellFormed() || /\p{Cc}/u.test(text)
    ? Effect.fail(invalid(`${name} must be 1 to ${max} characters of text.`))
    : Effect.succeed(text.trim())

/** A link's title: what the page shows as the thing paid for. */
export const validateTitle = (title: string) => shownText("title", title, 200)

const isCalendarDate = (text: string) => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)
  if (match === null) return false
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
  return date.toISOString().slice(0, 10) === text
}

const maxLines = 50

/** An invoice's fields; with a fixed amount, its lines must add up to it. */
export const validateInvoice = Effect.fnUntraced(function*(input: InvoiceInput, currency: string, fixed: bigint | null) {
  const reference = yield* Effect.mapError(validateReferenceId(input.reference), (e) => invalid(`invoice.reference: ${e.message}`))
  if (input.dueDate !== undefined && !isCalendarDate(input.dueDate)) {
    return yield* invalid("invoice.dueDate must be a calendar date, YYYY-MM-DD.")
  }
  const email = input.buyerEmail
  if (email !== undefined && (email.length > 254 || !/^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(email))) {
    return yield* invalid("invoice.buyerEmail must be an email address.")
  }
  const lines = input.lines ?? []
  if (lines.length > maxLines) return yield* invalid(`invoice.lines takes at most ${maxLines} lines.`)
  const parsed: Array<InvoiceLine> = []
  for (const [i, line] of lines.entries()) {
    const description = yield* shownText(`invoice.lines[${i}].description`, line.description, 200)
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1 || line.quantity > 1_000_000) {
      return yield* invalid(`invoice.lines[${i}].quantity must be an integer from 1 to 1000000.`)
    }
    const { value } = yield* validateFiatAmount({ unit: `iso4217/${currency}`, value: line.unitValue })
    parsed.push(new InvoiceLine({ description, quantity: line.quantity, unitValue: value }))
  }
  const total = parsed.reduce((sum, line) => sum + line.unitValue * BigInt(line.quantity), 0n)
  if (parsed.length > 0 && fixed !== null && total !== fixed) {
    return yield* invalid(`The invoice lines add up to ${total}, not the link's amount ${fixed} (minor units).`)
  }
  return new Invoice({ reference, dueDate: input.dueDate ?? null, buyerEmail: email ?? null, lines: parsed })
})
