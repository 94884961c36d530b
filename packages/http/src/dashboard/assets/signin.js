// @ts-check
/**
 * The sign-in view: the partner's secret API key, typed into a form and sent once to
 * `POST /dashboard/session`, which responds with an HttpOnly session cookie. The key is cleared from
 * the form at once and never stored (no web storage, no script-readable cookie). A team member
 * signs in with their email and password instead, or accepts an invitation link by choosing a
 * password.
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
      form,
      h("h2", {}, "Team members"),
      passwordForm({
        label: "Continue as team member",
        emailField: true,
        run: (email, password) => api.signInMember(email, password),
        refused: "That email and password do not match a team member.",
        signedIn
      }))
  ])
  key.focus()
}

/**
 * An email (for sign-in) and password form.
 *
 * @param {{ label: string, emailField: boolean, run: (email: string, password: string) => Promise<import("./api.js").Session>, refused: string, signedIn: (session: import("./api.js").Session) => void }} options
 */
function passwordForm(options) {
  const email = h("input", { type: "email", id: "member-email", name: "email", autocomplete: "username", required: true })
  const password = h("input", {
    type: "password",
    id: "member-password",
    name: "password",
    autocomplete: options.emailField ? "current-password" : "new-password",
    minlength: "12",
    required: true
  })
  const problem = h("div", { id: "member-problem" })
  const submit = h("button", { type: "submit", class: "button primary" }, options.label)
  return h(
    "form",
    {
      class: "form",
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault()
        void busy(submit, async () => {
          try {
            const session = await options.run(email.value.trim(), password.value)
            password.value = ""
            options.signedIn(session)
          } catch (error) {
            const message = error instanceof Error && "status" in error && error.status === 401 ? options.refused : error instanceof Error ? error.message : "That failed. Try again."
            problem.replaceChildren(alertBox(message))
          }
        })
      }
    },
    options.emailField ? field("Email", email) : null,
    field(options.emailField ? "Password" : "Choose a password", password, options.emailField ? undefined : "At least 12 characters."),
    problem,
    submit
  )
}

/**
 * The invitation view: the invited member chooses their password, which signs them in.
 *
 * @param {import("./api.js").Api} api
 * @param {string} token the invitation link's fragment
 * @param {(session: import("./api.js").Session) => void} signedIn
 */
export function showAcceptInvitation(api, token, signedIn) {
  showView("invitation", [
    h("div", { class: "sign-in" },
      h("h1", {}, "Join your team"),
      h("p", { class: "muted" }, "Choose a password to accept the invitation. You will sign in with your email and this password."),
      passwordForm({
        label: "Accept invitation",
        emailField: false,
        run: (_email, password) => api.acceptInvitation(token, password),
        refused: "This invitation link is no longer valid: it was used or it expired. Ask an owner of your team for a new one.",
        signedIn
      }))
  ])
}
