// @ts-check
/**
 * The data collection form, built from the payment's `collectData`: one field per property of its
 * JSON Schema (labels from the deprecated `fields` list when it names them), a choice between
 * alternatives where the schema asks for one of several groups (`anyOf`/`oneOf` of `required`
 * lists, e.g. place of birth or place of residence), and error messages placed on the fields.
 *
 * @module
 */
import { h } from "./dom.js"
import { validate } from "./json-schema.js"

/** @typedef {{ id: string, name: string, required: boolean, type: string }} CollectDataField */
/** @typedef {{ fields: ReadonlyArray<CollectDataField>, schema: any, url: string }} CollectData */
/** @typedef {{ input: HTMLInputElement | HTMLSelectElement, error: HTMLElement, wrapper: HTMLElement, schema: any, label: string }} Field */

/** ISO 3166-1 alpha-2 codes (Debian iso-codes); names come from the browser's Intl data. */
const countryCodes = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW".split(" ")

/** Labels of the properties of the travel-rule schema, when neither `fields` nor the schema name them. */
const knownLabels = /** @type {Record<string, string>} */ ({
  fullName: "Full name",
  dob: "Date of birth",
  pobCountry: "Country of birth",
  pobAddress: "Place of birth",
  porCountry: "Country of residence",
  porAddress: "Address of residence",
  tosConfirmed: "I confirm that this information is correct and accept the terms of service"
})

/** `autocomplete` tokens (WCAG 1.3.5: the purpose of fields about the buyer). */
const autocomplete = /** @type {Record<string, string>} */ ({
  fullName: "name",
  dob: "bday",
  porCountry: "country",
  porAddress: "street-address"
})

/** Names of the alternatives of the travel-rule schema. */
const knownChoices = /** @type {Record<string, string>} */ ({ pob: "Where I was born", por: "Where I live" })

/**
 * @param {any} schema
 * @returns {boolean}
 */
function isCountry(schema) {
  return schema?.type === "string" && schema.pattern === "^[A-Z]{2}$"
}

/**
 * The countries, by name in the buyer's language.
 *
 * @returns {HTMLOptionElement[]}
 */
function countryOptions() {
  /** @type {Intl.DisplayNames | undefined} */
  let names
  try {
    names = new Intl.DisplayNames(undefined, { type: "region", fallback: "code" })
  } catch {
    names = undefined
  }
  const collator = new Intl.Collator()
  return countryCodes
    .map((code) => ({ code, name: names?.of(code) ?? code }))
    .sort((a, b) => collator.compare(a.name, b.name))
    .map(({ code, name }) => h("option", { value: code }, name))
}

/**
 * The alternatives of a schema: `anyOf`/`oneOf` whose branches only require properties.
 *
 * @param {any} schema
 * @returns {string[][] | undefined}
 */
function alternativesOf(schema) {
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = schema?.[keyword]
    if (!Array.isArray(branches) || branches.length < 2) continue
    const groups = branches.map((branch) =>
      branch !== null && typeof branch === "object" && Object.keys(branch).length === 1 && Array.isArray(branch.required)
        ? branch.required.filter((/** @type {unknown} */ name) => typeof name === "string")
        : undefined
    )
    if (groups.every((group) => group !== undefined && group.length > 0)) return /** @type {string[][]} */ (groups)
  }
  return undefined
}

/**
 * The message for one failed rule of a field.
 *
 * @param {string} keyword
 * @param {any} schema
 * @returns {string}
 */
function messageFor(keyword, schema) {
  if (schema?.type === "boolean" && (keyword === "required" || keyword === "const")) return "Tick this box to continue."
  if (isCountry(schema) && (keyword === "required" || keyword === "pattern")) return "Choose a country."
  if (keyword === "required" || (keyword === "minLength" && schema.minLength <= 1)) return "This field is required."
  if (keyword === "format" && schema.format === "date") return "Enter a valid date."
  if (keyword === "minLength") return `Enter at least ${schema.minLength} characters.`
  if (keyword === "maxLength") return `Use at most ${schema.maxLength} characters.`
  if (keyword === "pattern") return "Check the format of this field."
  return "This value is not accepted."
}

/**
 * Builds the form's fields for `collect` into `form` and answers how to read and check them.
 *
 * @param {HTMLFormElement} form
 * @param {CollectData} collect
 */
export function buildForm(form, collect) {
  const schema = collect.schema ?? {}
  /** @type {Record<string, any>} */
  const properties = schema.properties ?? {}
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  const named = new Map((collect.fields ?? []).map((field) => [field.id, field.name]))
  const alternatives = alternativesOf(schema)
  const today = new Date().toISOString().slice(0, 10)
  /** @type {Map<string, Field>} */
  const fields = new Map()

  /** @param {string} id */
  const labelOf = (id) => named.get(id) ?? properties[id]?.title ?? knownLabels[id] ?? id

  /**
   * @param {string} id
   * @param {boolean} isRequired
   * @returns {HTMLElement}
   */
  const field = (id, isRequired) => {
    const property = properties[id] ?? {}
    const label = labelOf(id)
    const errorId = `${id}-error`
    const error = h("p", { id: errorId, class: "field-error", hidden: true })
    const common = { id, name: id, "aria-describedby": errorId, "aria-invalid": "false" }
    /** @type {HTMLInputElement | HTMLSelectElement} */
    let input
    /** @type {HTMLElement} */
    let wrapper
    if (property.type === "boolean") {
      input = h("input", { ...common, type: "checkbox", required: isRequired })
      wrapper = h("div", { class: "field checkbox" }, input, h("label", { for: id }, label), error)
    } else {
      if (isCountry(property)) {
        input = h("select", { ...common, required: isRequired, autocomplete: autocomplete[id] }, h("option", { value: "" }, "Choose a country"), countryOptions())
      } else if (Array.isArray(property.enum)) {
        input = h("select", { ...common, required: isRequired }, h("option", { value: "" }, "Choose"), property.enum.map((/** @type {unknown} */ value) => h("option", { value: String(value) }, String(value))))
      } else if (property.format === "date") {
        input = h("input", { ...common, type: "date", required: isRequired, max: id === "dob" ? today : undefined, autocomplete: autocomplete[id] })
      } else {
        input = h("input", {
          ...common,
          type: "text",
          required: isRequired,
          maxlength: typeof property.maxLength === "number" ? property.maxLength : undefined,
          autocomplete: autocomplete[id] ?? "off",
          spellcheck: "false"
        })
      }
      wrapper = h("div", { class: "field" }, h("label", { for: id }, label, isRequired ? "" : h("span", { class: "optional" }, " (optional)")), input, error)
    }
    fields.set(id, { input, error, wrapper, schema: property, label })
    return wrapper
  }

  const inAlternative = new Set(alternatives?.flat() ?? [])
  /** @type {{ radio: HTMLInputElement, members: string[], box: HTMLElement }[]} */
  const choices = []
  /** @type {HTMLElement[]} */
  const parts = []
  for (const id of Object.keys(properties)) {
    if (!inAlternative.has(id)) {
      parts.push(field(id, required.has(id)))
      continue
    }
    if (choices.length > 0 || alternatives === undefined) continue
    // The alternatives, where the first of their fields would be.
    const legendId = "alternatives-legend"
    const radios = h("div", { class: "choices", role: "radiogroup", "aria-labelledby": legendId })
    const boxes = h("div", { class: "alternatives" })
    alternatives.forEach((members, index) => {
      const prefix = members[0]?.slice(0, 3) ?? ""
      const sharePrefix = members.every((member) => member.startsWith(prefix))
      const name = (sharePrefix ? knownChoices[prefix] : undefined) ?? members.map(labelOf).join(" and ")
      const radio = h("input", { type: "radio", name: "alternative", id: `alternative-${index}`, value: String(index), checked: index === 0 })
      radios.append(h("label", { class: "choice", for: radio.id }, radio, name))
      const box = h("div", { class: "alternative", hidden: index !== 0 }, members.map((member) => field(member, true)))
      boxes.append(box)
      choices.push({ radio, members, box })
    })
    for (const choice of choices) {
      choice.radio.addEventListener("change", () => {
        for (const other of choices) other.box.hidden = !other.radio.checked
      })
    }
    parts.push(h("fieldset", { class: "fieldset" }, h("legend", { id: legendId }, "Which details do you give?"), radios, boxes))
  }
  form.append(...parts)

  /** @param {string} id */
  const visible = (id) => {
    const choice = choices.find((c) => c.members.includes(id))
    return choice === undefined || choice.radio.checked
  }

  /**
   * The form's data: visible fields with a value (text trimmed; unticked boxes and empty fields
   * left out, so that "required" applies).
   *
   * @returns {Record<string, unknown>}
   */
  const read = () => {
    /** @type {Record<string, unknown>} */
    const data = {}
    for (const [id, f] of fields) {
      if (!visible(id)) continue
      if (f.input instanceof HTMLInputElement && f.input.type === "checkbox") {
        if (f.input.checked) data[id] = true
      } else {
        const value = f.input.value.trim()
        if (value !== "") data[id] = value
      }
    }
    return data
  }

  /**
   * Shows each field's first error (and clears the others); answers the fields in error, in
   * page order, and the errors no field can show.
   *
   * @param {ReadonlyArray<import("./json-schema.js").SchemaError>} errors
   */
  const showErrors = (errors) => {
    /** @type {Field[]} */
    const invalid = []
    /** @type {string[]} */
    const general = []
    for (const [id, f] of fields) {
      const first = errors.find((error) => error.path === id)
      f.error.hidden = first === undefined
      f.error.textContent = first === undefined ? "" : messageFor(first.keyword, f.schema)
      f.input.setAttribute("aria-invalid", String(first !== undefined))
      if (first !== undefined) invalid.push(f)
    }
    for (const error of errors) if (!fields.has(error.path)) general.push("Some information is not accepted. Check the form.")
    return { invalid, general: [...new Set(general)] }
  }

  return {
    read,
    /** Validates the form's data in the page; answers the errors shown. */
    check: () => showErrors(validate(schema, read())),
    /** @param {boolean} disabled */
    setDisabled: (disabled) => {
      for (const element of form.querySelectorAll("input, select, button")) {
        /** @type {HTMLInputElement} */ (element).disabled = disabled
      }
    }
  }
}
