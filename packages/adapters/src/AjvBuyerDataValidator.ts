/**
 * `BuyerDataValidator` with ajv: JSON Schema draft 2020-12 (`ajv/dist/2020`), strict, every error
 * reported (`allErrors`), the `date` format of ajv-formats (a real calendar date, YYYY-MM-DD).
 * Each schema is compiled once (by identity). Problems are sentences naming the field and the rule
 * broken, never the value (buyer data is personal); the alternatives of an `anyOf` that none of
 * them satisfies are listed together.
 *
 * @module
 */
import { BuyerDataValidator, type JsonSchema } from "@paygate/domain"
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js"
import { Effect, Layer } from "effect"

// ajv is loaded on the first validation: most processes never collect buyer data, and ajv costs about 3 MB.
// `strictRequired` would refuse `required` inside `anyOf` branches for properties declared at the top.
const loadAjv = async () => {
  const [{ Ajv2020 }, formats] = await Promise.all([import("ajv/dist/2020.js"), import("ajv-formats")])
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false })
  // ajv-formats is CommonJS: its plugin is the module's default export.
  formats.default.default(ajv, ["date"])
  return ajv
}
let loading: ReturnType<typeof loadAjv> | undefined
const ajv = Effect.promise(() => (loading ??= loadAjv()))

const compiled = new WeakMap<JsonSchema, ValidateFunction>()
const validatorFor = (schema: JsonSchema) =>
  Effect.map(ajv, (ajv): ValidateFunction => {
    let validate = compiled.get(schema)
    if (validate === undefined) {
      validate = ajv.compile(schema)
      compiled.set(schema, validate)
    }
    return validate
  })

// `/porAddress` → `porAddress`; the whole object is `data`.
const fieldOf = (instancePath: string) => (instancePath === "" ? "data" : instancePath.slice(1).replaceAll("/", "."))

const describe = (error: ErrorObject): string => {
  const field = fieldOf(error.instancePath)
  const params = error.params as Record<string, unknown>
  switch (error.keyword) {
    case "required":
      return `${String(params.missingProperty)} is required`
    case "additionalProperties":
      return `${String(params.additionalProperty)} is not allowed`
    case "const":
      return `${field} must be ${JSON.stringify(params.allowedValue)}`
    case "format":
      return `${field} must be a valid ${String(params.format)}${params.format === "date" ? " (YYYY-MM-DD)" : ""}`
    default:
      return `${field} ${error.message ?? "is invalid"}`
  }
}

/** The problems of a failed validation, with each failed `anyOf` rendered as its alternatives. */
export const problemsOf = (errors: ReadonlyArray<ErrorObject>): ReadonlyArray<string> => {
  const anyOfs = errors.filter((e) => e.keyword === "anyOf").map((e) => e.schemaPath)
  const inside = (error: ErrorObject) => anyOfs.find((path) => error.schemaPath.startsWith(`${path}/`))
  const problems: Array<string> = []
  for (const error of errors) {
    if (inside(error) !== undefined) continue
    if (error.keyword !== "anyOf") {
      problems.push(describe(error))
      continue
    }
    const branches = new Map<string, Array<string>>()
    for (const sub of errors.filter((e) => inside(e) === error.schemaPath)) {
      const branch = sub.schemaPath.slice(error.schemaPath.length + 1).split("/")[0] ?? ""
      branches.set(branch, [...(branches.get(branch) ?? []), describe(sub)])
    }
    problems.push(`one of these is needed: ${[...branches.values()].map((b) => b.join(" and ")).join(", or ")}`)
  }
  return [...new Set(problems)]
}

/** The validator (stateless apart from its cache of compiled schemas). */
export const layer: Layer.Layer<BuyerDataValidator> = Layer.succeed(
  BuyerDataValidator,
  BuyerDataValidator.of({
    problems: (schema, data) =>
      Effect.map(validatorFor(schema), (validate) => (validate(data) ? [] : problemsOf(validate.errors ?? [])))
  })
)
