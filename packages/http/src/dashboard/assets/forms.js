// @ts-check
/**
 * The dashboard's forms and actions: labelled fields, buttons and forms that run a change with the
 * control busy and the service's message shown on failure, and the confirmation asked before a
 * change that cannot be undone.
 *
 * @module
 */
import { h } from "./dom.js"
import { alertBox, announce, messageOf } from "./ui.js"

/** @typedef {import("./dom.js").Child} Child */

/**
 * A labelled form control with an optional hint.
 *
 * @param {string} label
 * @param {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} control
 * @param {string} [hint]
 */
export function field(label, control, hint) {
  const hintId = hint === undefined ? undefined : `${control.id}-hint`
  if (hintId !== undefined) control.setAttribute("aria-describedby", hintId)
  return h(
    "div",
    { class: "field" },
    h("label", { for: control.id }, label),
    control,
    hint === undefined ? null : h("p", { class: "hint", id: hintId }, hint)
  )
}

/**
 * @param {string} id
 * @param {Record<string, import("./dom.js").AttributeValue>} [attributes]
 */
export function input(id, attributes = {}) {
  return h("input", { type: "text", id, name: id, ...attributes })
}

/**
 * @param {string} id
 * @param {ReadonlyArray<readonly [string, string]>} choices value and label
 * @param {string} selected
 */
export function select(id, choices, selected) {
  return h("select", { id, name: id }, choices.map(([value, label]) => h("option", { value, selected: value === selected }, label)))
}


/**
 * Asks before a change that cannot be undone: a modal dialog (focus inside, Escape cancels)
 * answering whether the person confirmed.
 *
 * @param {{ title: string, text: string, confirm: string, danger?: boolean }} options
 * @returns {Promise<boolean>}
 */
export function confirmDialog(options) {
  const opener = document.activeElement
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "confirm-dialog", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" })
    const finish = (/** @type {boolean} */ answer) => {
      dialog.close()
      dialog.remove()
      if (opener instanceof HTMLElement) opener.focus()
      resolve(answer)
    }
    dialog.append(
      h("h2", { id: "confirm-title" }, options.title),
      h("p", { id: "confirm-text" }, options.text),
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "button secondary small", onclick: () => finish(false) }, "Keep it"),
        h("button", { type: "button", class: `button ${options.danger === true ? "danger" : "primary"} small`, onclick: () => finish(true) }, options.confirm)
      )
    )
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault()
      finish(false)
    })
    document.body.append(dialog)
    dialog.showModal()
  })
}

/**
 * Runs `action` with `button` busy (disabled, `aria-busy`), restoring it after, with the focus
 * back on it when it had it (a disabled button loses the focus) and is still on the page.
 *
 * @template T
 * @param {HTMLButtonElement} button
 * @param {() => Promise<T>} action
 * @returns {Promise<T>}
 */
export async function busy(button, action) {
  const hadFocus = document.activeElement === button
  button.disabled = true
  button.setAttribute("aria-busy", "true")
  try {
    return await action()
  } finally {
    button.disabled = false
    button.removeAttribute("aria-busy")
    if (hadFocus && button.isConnected && document.activeElement === document.body) button.focus()
  }
}

/**
 * A button whose click runs `action`, after a confirmation when `confirm` is given, with the
 * button busy meanwhile; a failure's message (`describe`d, by default the service's) goes to
 * `problem`.
 *
 * @param {{ label: string, className?: string, ariaLabel?: string, confirm?: { title: string, text: string, confirm: string, danger?: boolean }, problem: HTMLElement, action: () => Promise<void>, describe?: (error: unknown) => string }} options
 */
export function actionButton(options) {
  const button = h("button", {
    type: "button",
    class: `button ${options.className ?? "secondary small"}`,
    "aria-label": options.ariaLabel,
    onclick: async () => {
      options.problem.replaceChildren()
      // Asked before the button turns busy: the dialog gives the focus back to it.
      if (options.confirm !== undefined && !(await confirmDialog(options.confirm))) return
      await busy(button, async () => {
        try {
          await options.action()
        } catch (error) {
          options.problem.replaceChildren(alertBox((options.describe ?? messageOf)(error)))
        }
      })
    }
  }, options.label)
  return button
}

/**
 * The switch of a record that can be turned off and on again (a payment link, a plan):
 * `POST {path}/deactivate` or `{path}/activate`, announced, then `done` (the view shown again).
 *
 * @param {{ api: import("./api.js").Api, name: string, active: boolean, path: string, problem: HTMLElement, done: () => Promise<void> }} options
 */
export function switchButton(options) {
  const { api, name, active, path, problem, done } = options
  return actionButton({
    label: active ? "Deactivate" : "Activate",
    ariaLabel: `${active ? "Deactivate" : "Activate"} ${name}`,
    problem,
    action: async () => {
      await api.post(`${path}/${active ? "deactivate" : "activate"}`, {})
      announce(`${name} ${active ? "deactivated" : "activated"}.`)
      await done()
    }
  })
}

/**
 * A form whose submit runs `action` with its button busy and shows the API's message on failure.
 *
 * @param {{ label: string, fields: ReadonlyArray<HTMLElement>, action: () => Promise<void>, className?: string }} options
 */
export function actionForm(options) {
  const problem = h("div", { class: "form-problem" })
  const submit = h("button", { type: "submit", class: "button primary small" }, options.label)
  return h(
    "form",
    {
      class: options.className ?? "form inline-form",
      novalidate: true,
      onsubmit: (event) => {
        event.preventDefault()
        problem.replaceChildren()
        void busy(submit, async () => {
          try {
            await options.action()
          } catch (error) {
            problem.replaceChildren(alertBox(messageOf(error)))
          }
        })
      }
    },
    options.fields,
    problem,
    h("div", { class: "filter-actions" }, submit)
  )
}
