import { Effect } from "effect"
import { ParamsValidation } from "../errors/DomainErrors.ts"

const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** An email as members are known by (trimmed, lower case), or `params_validation`. */
export const normalEmail = (email: string) => {
  const normal = email.trim().toLowerCase()
  return normal.length <= 254 && emailShape.test(normal)
    ? Effect.succeed(normal)
    : Effect.fail(new ParamsValidation({ message: "email must be an email address (name@domain), at most 254 characters." }))
}
