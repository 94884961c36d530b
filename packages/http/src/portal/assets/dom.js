// @ts-check
/**
 * DOM building without HTML strings (the pages enforce Trusted Types): elements from a tag,
 * attributes and children; strings become text nodes, so nothing is ever parsed as markup.
 *
 * @module
 */

/** @typedef {string | number | boolean | null | undefined | ((event: Event) => void)} AttributeValue */
/** @typedef {Node | string | null | undefined | false} Child */

/**
 * Creates an element. Attributes: `false`, `null` and `undefined` are left out, `true` sets an
 * empty attribute, functions of `on…` names become event listeners.
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, AttributeValue>} [attributes]
 * @param {...(Child | ReadonlyArray<Child>)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue
    if (typeof value === "function") element.addEventListener(name.slice(2), value)
    else element.setAttribute(name, value === true ? "" : String(value))
  }
  append(element, children)
  return element
}

/**
 * Appends children (nested arrays flattened; empty values skipped).
 *
 * @param {Element} parent
 * @param {ReadonlyArray<Child | ReadonlyArray<Child>>} children
 */
export function append(parent, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    parent.append(typeof child === "string" ? document.createTextNode(child) : child)
  }
}

/**
 * Replaces an element's content.
 *
 * @param {Element} parent
 * @param {...(Child | ReadonlyArray<Child>)} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren()
  append(parent, children)
}

/**
 * The element with this id, of the given type; throws when the page lacks it.
 *
 * @template {typeof HTMLElement} T
 * @param {string} id
 * @param {T} type
 * @returns {InstanceType<T>}
 */
export function byId(id, type) {
  const element = document.getElementById(id)
  if (!(element instanceof type)) throw new Error(`The page has no #${id}.`)
  return /** @type {InstanceType<T>} */ (element)
}

/**
 * The configuration block the server embedded in the page.
 *
 * @returns {any}
 */
export function pageConfig() {
  return JSON.parse(byId("portal-config", HTMLScriptElement).text)
}

// The first view replaces the page's loading text: focus stays where the page load put it.
let firstView = true

/**
 * Shows a view in the page's `main` element: its content replaced, `data-view` set, and (after the
 * first view, unless asked not to) focus moved to the view's heading, so that screen readers
 * announce the change and keyboard users continue from there.
 *
 * @param {string} name
 * @param {ReadonlyArray<Child | ReadonlyArray<Child>>} children
 * @param {{ focus?: boolean }} [options]
 */
export function showView(name, children, options = {}) {
  const main = byId("view", HTMLElement)
  main.dataset["view"] = name
  main.removeAttribute("aria-busy")
  replace(main, ...children)
  const moveFocus = options.focus !== false && !firstView
  firstView = false
  if (moveFocus) {
    const heading = main.querySelector("h1")
    if (heading !== null) {
      heading.tabIndex = -1
      heading.focus({ preventScroll: true })
    }
  }
}

/**
 * An image of an icon URL, only for HTTPS or inline data images (others are left out, so the page
 * never asks for a blocked resource).
 *
 * @param {string | null | undefined} url
 * @param {string} className
 * @param {string} [alt]
 * @returns {HTMLImageElement | null}
 */
export function icon(url, className, alt = "") {
  if (typeof url !== "string" || !(url.startsWith("https://") || url.startsWith("data:image/"))) return null
  const image = h("img", { src: url, alt, class: className, width: 40, height: 40, decoding: "async", referrerpolicy: "no-referrer" })
  // A broken remote icon disappears rather than showing a broken image.
  image.addEventListener("error", () => image.remove(), { once: true })
  return image
}

/**
 * A random identifier (hex of 16 bytes); works outside secure contexts too.
 *
 * @returns {string}
 */
export function randomId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("")
}
