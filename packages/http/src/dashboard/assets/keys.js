// @ts-check
/**
 * The partner's API keys of the session's mode: list (id, last characters, created, revoked),
 * create (the new secret shown once), revoke (confirmed; revoking the key of this session signs
 * out at once).
 *
 * @module
 */
import { h } from "./dom.js"
import { actionButton } from "./forms.js"
import { announce, section, shownOnce, statusBadge, table, time } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/**
 * @param {Context} context
 * @param {() => Promise<void>} reload
 * @param {HTMLElement} news where a new key is shown
 */
export async function keysSection(context, reload, news) {
  const { api, session } = context
  /** @type {ReadonlyArray<any>} */
  const keys = (await api.get("/v1/api-keys", { limit: "100" })).data
  const problem = h("div", {})
  const create = actionButton({
    label: `Create ${session.mode === "sandbox" ? "test" : "live"} key`,
    className: "primary small",
    problem,
    action: async () => {
      const created = await api.post("/v1/api-keys")
      await reload()
      news.replaceChildren(shownOnce("New secret key, shown only now. Store it in your backend's secrets; it cannot be shown again:", created.secret))
      announce("Key created. Copy it now.")
    }
  })

  const rows = keys.map((key) => {
    const current = key.id === session.keyId
    const revoke = actionButton({
      label: "Revoke",
      className: "danger small",
      ariaLabel: `Revoke key ${key.id}`,
      problem,
      confirm: {
        title: "Revoke this key?",
        text: current
          ? "This is the key you signed in with: revoking it signs you out. Requests with it are refused from now on."
          : "Requests with it are refused from now on, and its dashboard sessions end.",
        confirm: "Revoke key",
        danger: true
      },
      action: async () => {
        await api.remove(`/v1/api-keys/${encodeURIComponent(key.id)}`)
        announce("Key revoked.")
        await reload()
      }
    })
    return [
      h("span", { class: "stack" }, h("code", { class: "id" }, key.id), current ? h("span", { class: "muted" }, "this session's key") : null),
      key.hint === null || key.hint === undefined ? "—" : h("code", {}, `…${key.hint}`),
      time(key.createdAt),
      key.revokedAt === null || key.revokedAt === undefined ? statusBadge("active") : h("span", {}, statusBadge("revoked"), " ", time(key.revokedAt)),
      key.revokedAt === null || key.revokedAt === undefined ? revoke : null
    ]
  })
  return section("API keys",
    h("p", { class: "muted" }, `Secret keys of this account in ${session.mode === "sandbox" ? "test mode" : "live mode"}. Keep them on your server; never in a web page or app.`),
    problem,
    keys.length === 0 ? null : table("API keys", ["Key", "Ends with", "Created", "Status", ""], rows),
    create)
}
