// @ts-check
/**
 * A JSON Schema (draft 2020-12) validator for the data collection form: the keywords a form's
 * schema uses (type, properties, required, additionalProperties, min/maxLength, pattern, format
 * date, const, enum, anyOf, oneOf, allOf, not, if/then/else, dependentRequired, minimum, maximum).
 * Other keywords are ignored: the service validates the submission again, completely.
 *
 * @module
 */

/**
 * One failed rule: `path` is the property (top-level form field) it concerns, `""` for the whole
 * object.
 *
 * @typedef {{ path: string, keyword: string, schema: any }} SchemaError
 */

/**
 * @param {unknown} a
 * @param {unknown} b
 * @returns {boolean}
 */
function deepEqual(a, b) {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  return keysA.length === keysB.length &&
    keysA.every((key) => deepEqual(/** @type {any} */ (a)[key], /** @type {any} */ (b)[key]))
}

/**
 * @param {unknown} value
 * @returns {string}
 */
function typeOf(value) {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number"
  return typeof value
}

/**
 * RFC 3339 full-date: YYYY-MM-DD of a real calendar day.
 *
 * @param {string} text
 * @returns {boolean}
 */
export function isDate(text) {
  const match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(text)
  if (match === null) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/**
 * @param {string} pattern
 * @param {string} text
 * @returns {boolean}
 */
function matches(pattern, text) {
  try {
    return new RegExp(pattern, "u").test(text)
  } catch {
    return true
  }
}

/**
 * The errors of `value` against `schema`; empty when valid. `path` is the top-level property the
 * value sits in.
 *
 * @param {any} schema
 * @param {unknown} value
 * @param {string} [path]
 * @returns {SchemaError[]}
 */
export function validate(schema, value, path = "") {
  if (schema === true || schema === undefined) return []
  if (schema === false) return [{ path, keyword: "false", schema }]
  /** @type {SchemaError[]} */
  const errors = []
  /** @param {string} keyword */
  const fail = (keyword) => errors.push({ path, keyword, schema })
  const type = typeOf(value)

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type]
    if (!types.includes(type) && !(type === "integer" && types.includes("number"))) {
      fail("type")
      return errors
    }
  }
  if ("const" in schema && !deepEqual(schema.const, value)) fail("const")
  if (Array.isArray(schema.enum) && !schema.enum.some((/** @type {unknown} */ option) => deepEqual(option, value))) fail("enum")

  if (typeof value === "string") {
    const length = [...value].length
    if (typeof schema.minLength === "number" && length < schema.minLength) fail("minLength")
    if (typeof schema.maxLength === "number" && length > schema.maxLength) fail("maxLength")
    if (typeof schema.pattern === "string" && !matches(schema.pattern, value)) fail("pattern")
    if (schema.format === "date" && !isDate(value)) fail("format")
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) fail("minimum")
    if (typeof schema.maximum === "number" && value > schema.maximum) fail("maximum")
  }

  if (type === "object") {
    const object = /** @type {Record<string, unknown>} */ (value)
    const properties = schema.properties ?? {}
    for (const name of Array.isArray(schema.required) ? schema.required : []) {
      if (!(name in object)) errors.push({ path: path || name, keyword: "required", schema: properties[name] ?? {} })
    }
    for (const [name, child] of Object.entries(object)) {
      if (name in properties) errors.push(...validate(properties[name], child, path || name))
      else if (schema.additionalProperties !== undefined) errors.push(...validate(schema.additionalProperties, child, path || name))
    }
    for (const [name, needed] of Object.entries(schema.dependentRequired ?? {})) {
      if (!(name in object) || !Array.isArray(needed)) continue
      for (const other of needed) {
        if (!(other in object)) errors.push({ path: path || other, keyword: "required", schema: properties[other] ?? {} })
      }
    }
  }

  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) errors.push(...validate(part, value, path))
  for (const keyword of ["anyOf", "oneOf"]) {
    if (!Array.isArray(schema[keyword])) continue
    const results = schema[keyword].map((/** @type {any} */ branch) => validate(branch, value, path))
    const passing = results.filter((/** @type {SchemaError[]} */ result) => result.length === 0).length
    if (passing === 0) {
      // The closest branch tells the buyer what is missing.
      /** @type {SchemaError[]} */
      const closest = results.reduce((/** @type {SchemaError[]} */ best, /** @type {SchemaError[]} */ result) =>
        result.length < best.length ? result : best, results[0] ?? [])
      errors.push(...(closest.length > 0 ? closest : [{ path, keyword, schema }]))
    } else if (keyword === "oneOf" && passing > 1) {
      fail("oneOf")
    }
  }
  if (schema.not !== undefined && validate(schema.not, value, path).length === 0) fail("not")
  if (schema.if !== undefined) {
    const branch = validate(schema.if, value, path).length === 0 ? schema.then : schema.else
    if (branch !== undefined) errors.push(...validate(branch, value, path))
  }
  return errors
}
