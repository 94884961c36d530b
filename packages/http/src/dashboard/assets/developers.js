// @ts-check
/**
 * The developers view: webhook endpoints with their delivery log, and API keys. Secrets created
 * here (a webhook's signing secret, a new API key) are shown once, at the top of the view.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { keysSection } from "./keys.js"
import { webhooksSection } from "./webhooks.js"

/** @typedef {import("./context.js").Context} Context */

/** @param {Context} context */
export async function showDevelopers(context) {
  // Survives reloads of the view: a secret stays on screen until the person leaves.
  const news = h("div", { id: "news", "aria-live": "polite" })
  const reload = async () => {
    if (!context.isCurrent()) return
    await render({ ...context, followed: true })
  }
  /** @param {Context} current */
  const render = async (current) => {
    const [webhooks, keys] = await Promise.all([webhooksSection(current, reload, news), keysSection(current, reload, news)])
    if (!current.isCurrent()) return
    showView("developers", [h("h1", {}, "Developers"), news, webhooks, keys], { focus: current.followed !== true })
  }
  await render(context)
}
