import { Effect } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"

const maxNameLength = 200
const maxEmailLength = 254
const maxIconUrlLength = 2048
// Deliberately simple (local@domain.tld): the address is only shown back, never mailed by the service.
const emailPattern = /^[^\s@]{1,64}@(?:[^\s@.]+\.)+[^\s@.]{2,}$/

/** `merchantName`, trimmed: 1–200 characters (code points). */
export const validateMerchantName = (input: string): Effect.Effect<string, ParamsValidation> => {
  const name = input.trim()
  const length = [...name].length
  return length >= 1 && length <= maxNameLength
    ? Effect.succeed(name)
    : Effect.fail(new ParamsValidation({ message: `merchantName must be 1 to ${maxNameLength} characters long.` }))
}

/** `merchantEmail`, trimmed: a plain `local@domain.tld` address of at most 254 characters. */
export const validateMerchantEmail = (input: string): Effect.Effect<string, ParamsValidation> => {
  const email = input.trim()
  return email.length <= maxEmailLength && emailPattern.test(email)
    ? Effect.succeed(email)
    : Effect.fail(new ParamsValidation({ message: "merchantEmail must be an email address (local@domain.tld)." }))
}

/** `iconUrl`: an absolute HTTPS URL with a host, at most 2048 characters; kept as given. */
export const validateIconUrl = (input: string): Effect.Effect<string, ParamsValidation> => {
  const valid = input.length <= maxIconUrlLength && URL.canParse(input) && (() => {
    const url = new URL(input)
    return url.protocol === "https:" && url.hostname !== ""
  })()
  return valid
    ? Effect.succeed(input)
    : Effect.fail(new ParamsValidation({ message: `iconUrl must be an HTTPS URL of at most ${maxIconUrlLength} characters.` }))
}
