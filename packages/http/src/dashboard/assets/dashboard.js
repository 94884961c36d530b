// @ts-check
/**
 * The partner dashboard (`/dashboard`): signs in by exchanging the secret key once for a session
 * (an HttpOnly cookie the script never sees; the key is not kept anywhere), then shows payments,
 * merchants, payment links, subscriptions and developer settings through the partner API. Views
 * follow the address (`/dashboard/payments/{id}`…), so links, Back and reloads work. Sandbox
 * sessions show a "Test mode" badge on every view.
 *
 * @module
 */
import { byId, h, pageConfig, replace, showView } from "./dom.js"
import { createApi } from "./api.js"
import { GatewayError } from "./gateway.js"
import { showDevelopers } from "./developers.js"
import { showHome } from "./home.js"
import { showLinks } from "./links.js"
import { showMerchant, showMerchants } from "./merchants.js"
import { showPayment } from "./payment.js"
import { showPayments } from "./payments.js"
import { showPlans } from "./plans.js"
import { showAcceptInvitation, showSignIn } from "./signin.js"
import { showSubscription } from "./subscription.js"
import { showSubscriptions } from "./subscriptions.js"
import { showTeam } from "./team.js"
import { busy } from "./forms.js"
import { alertBox, announce, link, messageOf, setNavigator } from "./ui.js"

/** @typedef {import("./api.js").Session} Session */
/** @typedef {import("./context.js").DashboardConfig} DashboardConfig */
/** @typedef {import("./context.js").Context} Context */

const config = /** @type {DashboardConfig} */ (pageConfig())
const topbar = byId("topbar", HTMLElement)
/** @type {Session | null} */
let session = null
/** Counts views shown: a view's pending work checks it is still the one on screen. */
let generation = 0

const api = createApi({
  onSignedOut: () => {
    if (session === null) return
    session = null
    render({ notice: "Your session has ended (signed out, expired, or its API key was revoked). Sign in again to continue." })
  }
})

/** @param {string} path */
function navigate(path) {
  if (path !== `${location.pathname}${location.search}`) history.pushState(null, "", path)
  render()
  window.scrollTo(0, 0)
}
setNavigator(navigate)
window.addEventListener("popstate", () => render())

const sections = /** @type {const} */ ([
  ["/dashboard", "Home"],
  ["/dashboard/payments", "Payments"],
  ["/dashboard/merchants", "Merchants"],
  ["/dashboard/links", "Links"],
  ["/dashboard/subscriptions", "Subscriptions"],
  ["/dashboard/developers", "Developers"],
  ["/dashboard/team", "Team"]
])

function renderTopbar() {
  if (session === null) {
    topbar.className = "topbar"
    replace(topbar, h("div", { class: "topbar-row" }, h("div", { class: "brand" }, "paygate")))
    return
  }
  const current = location.pathname
  const signOut = h("button", {
    type: "button",
    class: "button secondary small",
    onclick: () =>
      busy(signOut, async () => {
        try {
          await api.signOut()
        } catch (error) {
          // Already gone: signed out either way.
          if (!(error instanceof GatewayError && error.status === 401)) {
            announce(messageOf(error))
            return
          }
        }
        session = null
        history.pushState(null, "", "/dashboard")
        render({ notice: "You are signed out." })
      })
  }, "Sign out")
  topbar.className = `topbar ${session.mode}`
  replace(
    topbar,
    h(
      "div",
      { class: "topbar-row" },
      h("div", { class: "brand" }, "paygate", h("span", { class: "muted brand-sub" }, ` · ${session.partnerName}`)),
      session.member === null ? null : h("span", { class: "muted", title: session.member.email }, `${session.member.role}`),
      session.mode === "sandbox"
        ? h("span", { class: "badge test-mode", title: "Sandbox: test payments, no real funds" }, "Test mode")
        : h("span", { class: "badge live-mode" }, "Live"),
      signOut
    ),
    h(
      "nav",
      { "aria-label": "Dashboard" },
      h("ul", {}, sections.map(([path, label]) =>
        h("li", {}, link(path, { "aria-current": (path === "/dashboard" ? current.replace(/\/+$/, "") === path : current.startsWith(path)) ? "page" : false }, label))))
    )
  )
}

/**
 * Shows the view of the address (or the sign-in form when signed out).
 *
 * @param {{ notice?: string }} [options]
 */
async function render(options = {}) {
  const mine = ++generation
  renderTopbar()
  /** @param {Session} started */
  const signedIn = (started) => {
    session = started
    if (location.pathname === "/dashboard/invitation") history.replaceState(null, "", "/dashboard")
    render()
  }
  // An invitation link: its token is the fragment (never sent to a server), cleared once read.
  if (location.pathname === "/dashboard/invitation" && location.hash.length > 1) {
    const token = location.hash.slice(1)
    history.replaceState(null, "", "/dashboard/invitation")
    showAcceptInvitation(api, token, signedIn)
    return
  }
  if (session === null) {
    showSignIn(api, options.notice, signedIn)
    return
  }
  /** @type {Context} */
  const context = { api, session, config, query: new URLSearchParams(location.search), isCurrent: () => mine === generation }
  const path = location.pathname.replace(/\/+$/, "")
  const payment = /^\/dashboard\/payments\/([^/]+)$/.exec(path)
  const merchant = /^\/dashboard\/merchants\/([^/]+)$/.exec(path)
  const subscription = /^\/dashboard\/subscriptions\/([^/]+)$/.exec(path)
  try {
    if (path === "/dashboard") await showHome(context)
    else if (path === "/dashboard/payments") await showPayments(context)
    else if (payment !== null) await showPayment(context, decodeURIComponent(payment[1] ?? ""))
    else if (path === "/dashboard/merchants") await showMerchants(context)
    else if (merchant !== null) await showMerchant(context, decodeURIComponent(merchant[1] ?? ""))
    else if (path === "/dashboard/links") await showLinks(context)
    else if (path === "/dashboard/subscriptions") await showSubscriptions(context)
    else if (path === "/dashboard/subscriptions/plans") await showPlans(context)
    else if (subscription !== null) await showSubscription(context, decodeURIComponent(subscription[1] ?? ""))
    else if (path === "/dashboard/developers") await showDevelopers(context)
    else if (path === "/dashboard/team") await showTeam(context)
    else showView("not-found", [h("h1", {}, "Page not found"), link("/dashboard/payments", {}, "Go to payments")])
  } catch (error) {
    if (mine !== generation || session === null) return
    showView("error", [h("h1", {}, "This page could not be shown"), alertBox(messageOf(error)), link(location.pathname, {}, "Try again")])
  }
}

async function start() {
  try {
    session = await api.session()
  } catch (error) {
    showView("error", [h("h1", {}, "The dashboard could not start"), alertBox(messageOf(error))])
    return
  }
  await render()
}

void start()
