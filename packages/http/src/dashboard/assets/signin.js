// @ts-check
/**
 * The sign-in view: the partner's secret API key, typed into a form and sent once to
 * `POST /dashboard/session`, which answers with an HttpOnly session cookie. The key is cleared from
 * the form at once and never stored (no web storage, no script-readable cookie).
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { busy, field } from "./forms.js"
import { alertBox } from "./ui.js"

/**
 * @param {import("./api.js").Api} api
 * @param {string | undefined} notice why the person sees this form again
 * @param {(session: import("./api.js").Session) => void} signedIn
 */
export function showSignIn(api, notice, signedIn) {
  const key = h("input", {
    type: "password",
    id: "api-key",
    name: "api-key",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    "aria-describedby": "api-key-hint"
  })
  const problem = h("div", { id: "sign-in-problem" })
  const submit = h("button", { type: "submit", class: "button primary" }, "Sign in")
  const form = h(
    "form",
    {
      class: "form",
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault()
        const apiKey = key.value.trim()
        if (apiKey === "") {
          key.setAttribute("aria-invalid", "true")
          problem.replaceChildren(alertBox("Enter your secret API key."))
          key.focus()
          return
        }
        void busy(submit, async () => {
          try {
            const session = await api.signIn(apiKey)
            key.value = ""
            signedIn(session)
          } catch (error) {
            key.setAttribute("aria-invalid", "true")
            const message = error instanceof Error && "status" in error && error.status === 401
              ? "That key was not accepted. Check that you copied the whole secret key (it starts with sk_) and that it has not been revoked."
              : error instanceof Error ? error.message : "Signing in failed. Try again."
            problem.replaceChildren(alertBox(message))
            key.focus()
          }
        })
      }
    },
    field("Secret API key", key),
    h("p", { class: "hint", id: "api-key-hint" }, "Your partner secret key: sk_test_… opens the test-mode dashboard, sk_live_… the live one. It is exchanged once for a session and never kept in this browser."),
    problem,
    submit
  )
  showView("sign-in", [
    h("div", { class: "sign-in" },
      h("h1", {}, "Sign in to your dashboard"),
      h("p", { class: "muted" }, "See and refund payments, manage merchants, webhooks and API keys."),
      notice === undefined ? null : alertBox(notice, "info"),
      form)
  ])
  key.focus()
}
