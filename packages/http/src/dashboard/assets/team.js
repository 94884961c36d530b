// @ts-check
/**
 * The team view: the members of this account (every member sees them), and for owners (and key
 * sessions) the invitation form, role changes, removals and the audit log. What the page hides is
 * also refused by the server: every operation is checked against the member's role.
 *
 * @module
 */
import { h, showView } from "./dom.js"
import { actionButton, actionForm, field, input, select } from "./forms.js"
import { announce, section, shownOnce, table, time } from "./ui.js"

/** @typedef {import("./context.js").Context} Context */

/** @type {ReadonlyArray<readonly [string, string]>} */
const roles = [
  ["viewer", "Viewer: reads only"],
  ["operator", "Operator: refunds and payment links"],
  ["developer", "Developer: API keys and webhooks"],
  ["owner", "Owner: everything, the team and the audit log"]
]

/** @param {Context} context */
export async function showTeam(context) {
  const news = h("div", { id: "news", "aria-live": "polite" })
  const reload = async () => {
    if (context.isCurrent()) await render({ ...context, followed: true })
  }
  /** @param {Context} current */
  const render = async (current) => {
    const { api, session } = current
    const owner = session.member === null || session.member.role === "owner"
    const [members, audit] = await Promise.all([
      api.get("/v1/team/members"),
      owner ? api.get("/v1/audit-log", { limit: "50" }) : Promise.resolve(null)
    ])
    if (!current.isCurrent()) return
    const problem = h("div", {})
    const rows = members.data.map((/** @type {any} */ member) => {
      const role = select(`role-${member.memberId}`, roles.map(([value]) => [value, value]), member.role)
      role.setAttribute("aria-label", `Role of ${member.email}`)
      role.disabled = !owner
      role.addEventListener("change", async () => {
        try {
          await api.patch(`/v1/team/members/${encodeURIComponent(member.memberId)}`, { role: role.value })
          announce(`${member.email} is now ${role.value}.`)
        } catch (error) {
          role.value = member.role
          problem.replaceChildren(h("p", { class: "alert error", role: "alert" }, error instanceof Error ? error.message : String(error)))
        }
      })
      const remove = owner
        ? actionButton({
          label: "Remove",
          className: "danger small",
          ariaLabel: `Remove ${member.email}`,
          problem,
          confirm: { title: `Remove ${member.email}?`, text: "They are signed out at once and can no longer sign in.", confirm: "Remove member", danger: true },
          action: async () => {
            await api.remove(`/v1/team/members/${encodeURIComponent(member.memberId)}`)
            announce("Member removed.")
            await reload()
          }
        })
        : null
      return [member.email, role, time(member.createdAt), remove]
    })
    const email = input("invite-email", { type: "email", autocomplete: "off", required: true })
    const role = select("invite-role", roles, "viewer")
    const invite = owner
      ? actionForm({
        label: "Create invitation link",
        fields: [field("Email", email), field("Role", role)],
        action: async () => {
          const invitation = await api.post("/v1/team/invitations", { email: email.value, role: role.value })
          await reload()
          news.replaceChildren(shownOnce(
            `Invitation for ${invitation.email} (${invitation.role}). No email is sent: give them this link yourself. It works once, for 7 days:`,
            invitation.url
          ))
          announce("Invitation link created. Copy it now.")
        }
      })
      : null
    showView("team", [
      h("h1", {}, "Team"),
      news,
      section("Members",
        problem,
        members.data.length === 0 ? h("p", { class: "muted" }, "No members yet: invite someone below.") : table("Members", ["Email", "Role", "Joined", ""], rows),
        invite),
      audit === null ? null : section("Audit log",
        audit.data.length === 0
          ? h("p", { class: "muted" }, "Nothing recorded yet.")
          : table("Audit log", ["When", "Who", "Action", "Subject"], audit.data.map((/** @type {any} */ entry) => [time(entry.at), entry.actor, h("code", {}, entry.action), entry.subject])))
    ], { focus: current.followed !== true })
  }
  await render(context)
}
