// @ts-check
/**
 * The data collection page (`{data_collection_url}?paymentId=…&account=…`): reads what to collect
 * for the account from the payment's options, renders the form from its JSON Schema, validates it
 * in the page, submits it (the service validates again), and tells the window that opened or
 * embeds the page how it ended: `{ type: "IC_COMPLETE" }` or `{ type: "IC_ERROR", message }`.
 *
 * @module
 */
import { h, pageConfig, randomId, showView } from "./dom.js"
import { createGateway, GatewayError } from "./gateway.js"
import { buildForm } from "./schema-form.js"

/** @typedef {import("./schema-form.js").CollectData} CollectData */

const config = /** @type {{ paymentId: string, account: string, appId: string, messageOrigins: string[] }} */ (pageConfig())
const gateway = createGateway({ appId: config.appId, clientId: randomId() })

/**
 * Tells the opener (a window that opened this page) or the parent (a page that embeds it), when it
 * is of this origin or one the service names (the checkout's, the configured wallets'): addressed
 * to each, the browser delivers it only to the one the window is at, so no other page learns how
 * the buyer's data collection ended.
 *
 * @param {{ type: "IC_COMPLETE" } | { type: "IC_ERROR", message: string }} message
 */
function notify(message) {
  const target = window.opener ?? (window.parent !== window ? window.parent : null)
  if (target === null) return
  for (const origin of new Set([window.location.origin, ...config.messageOrigins])) target.postMessage(message, origin)
}

/** @param {unknown} error */
function describe(error) {
  if (error instanceof GatewayError) {
    if (error.code === "payment_expired") return "This payment has expired."
    if (error.code === "invalid_state") return "This payment no longer accepts information."
    if (error.code === "payment_not_found") return "This payment was not found."
    return error.message
  }
  return "Something went wrong. Please try again."
}

/** @param {unknown} error */
function showFailure(error) {
  const message = describe(error)
  showView("error", [h("h1", {}, "We could not collect your information"), h("p", {}, message)])
  notify({ type: "IC_ERROR", message })
}

function showDone() {
  const embedded = window.opener !== null || window.parent !== window
  showView("done", [
    h("h1", {}, "Thank you"),
    h("p", {}, embedded ? "Your information was saved. You can continue with your payment." : "Your information was saved. You can close this page and return to your payment.")
  ])
  notify({ type: "IC_COMPLETE" })
}

/**
 * What to collect for the page's account: its option's `collectData`, else the payment's.
 *
 * @returns {Promise<CollectData | null>}
 */
async function whatToCollect() {
  const response = await gateway.options(config.paymentId, [config.account])
  const account = config.account.toLowerCase()
  const option = (response.options ?? []).find(
    (/** @type {any} */ o) => typeof o.account === "string" && o.account.toLowerCase() === account && o.collectData
  )
  return option?.collectData ?? response.collectData ?? null
}

/** @param {CollectData} collect */
function showForm(collect) {
  const alert = h("div", { class: "alert", role: "alert", hidden: true })
  const submit = h("button", { type: "submit", class: "button primary" }, "Continue")
  const form = h("form", { class: "form", novalidate: true, "aria-describedby": "collect-intro" })
  const fields = buildForm(form, collect)
  form.append(alert, submit)

  /** @param {string} text */
  const showAlert = (text) => {
    alert.textContent = text
    alert.hidden = text === ""
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault()
    showAlert("")
    const { invalid, general } = fields.check()
    if (invalid.length > 0 || general.length > 0) {
      showAlert(general[0] ?? `Check ${invalid.length === 1 ? "the highlighted field" : `the ${invalid.length} highlighted fields`}.`)
      invalid[0]?.input.focus()
      return
    }
    fields.setDisabled(true)
    submit.textContent = "Sending…"
    try {
      await gateway.collectData(config.paymentId, config.account, fields.read())
      showDone()
    } catch (error) {
      if (error instanceof GatewayError && (error.code === "params_validation" || error.code === "invalid_params")) {
        // The service's own check disagrees: the buyer can correct and send again.
        fields.setDisabled(false)
        submit.textContent = "Continue"
        showAlert(error.message)
        submit.focus()
        return
      }
      showFailure(error)
    }
  })

  showView("form", [
    h("h1", {}, "Your information"),
    h("p", { id: "collect-intro", class: "muted" }, "The rules that apply to this payment ask for a few details about you. They are sent to the payment service."),
    form
  ])
}

async function main() {
  try {
    const collect = await whatToCollect()
    if (collect === null) showDone()
    else showForm(collect)
  } catch (error) {
    showFailure(error)
  }
}

void main()
