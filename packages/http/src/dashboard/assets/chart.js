// @ts-check
/**
 * The volume chart: payments per UTC day as bars (all created that day, the succeeded part filled
 * in), drawn as inline SVG by the page itself, element by element (nothing parsed as markup). The
 * bars stretch to the width; the labels are HTML beside them, so text keeps its size on a phone.
 *
 * @module
 */
import { h } from "./dom.js"

/** @typedef {{ date: string, created: number, succeeded: number }} Day */

const svgNs = "http://www.w3.org/2000/svg"
const daySeconds = 86_400
const width = 600
const height = 160

/**
 * An SVG element (also the held funds' bar, hold.js).
 *
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {...(Node | null)} children
 */
export function svg(tag, attributes, ...children) {
  const element = document.createElementNS(svgNs, tag)
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  for (const child of children) if (child !== null) element.append(child)
  return element
}

/** The smallest of 2, 4, 10 × 10ⁿ at or above `value`: a round top for the axis, whose half is whole too. @param {number} value */
function roundUp(value) {
  for (let scale = 1; ; scale *= 10) {
    for (const step of [2, 4, 10]) if (step * scale >= value) return step * scale
  }
}

const dayLabel = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", timeZone: "UTC" })

/** @param {string} date YYYY-MM-DD */
const labelOf = (date) => dayLabel.format(new Date(`${date}T00:00:00Z`))

/**
 * Every day from `since` to `until` (Unix seconds, UTC day starts), with its payments or none.
 *
 * @param {ReadonlyArray<Day>} days
 * @param {number} since
 * @param {number} until
 * @returns {Array<Day>}
 */
export function everyDay(days, since, until) {
  const byDate = new Map(days.map((day) => [day.date, day]))
  const count = Math.max(0, Math.round((until - since) / daySeconds))
  return Array.from({ length: count }, (_, i) => {
    const date = new Date((since + i * daySeconds) * 1000).toISOString().slice(0, 10)
    return byDate.get(date) ?? { date, created: 0, succeeded: 0 }
  })
}

/**
 * The chart of `days` (every day of the range, oldest first), with its axis and legend.
 *
 * @param {ReadonlyArray<Day>} days
 */
export function volumeChart(days) {
  const top = roundUp(Math.max(1, ...days.map((day) => day.created)))
  const slot = width / Math.max(1, days.length)
  const gap = Math.min(4, slot * 0.25)
  const y = (/** @type {number} */ count) => height - (count / top) * height
  const created = days.reduce((sum, day) => sum + day.created, 0)
  const succeeded = days.reduce((sum, day) => sum + day.succeeded, 0)
  const first = days[0]
  const last = days.at(-1)
  const chart = svg(
    "svg",
    {
      class: "chart",
      viewBox: `0 0 ${width} ${height}`,
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": `Payments per day: ${created} created, ${succeeded} succeeded${first === undefined || last === undefined ? "" : `, ${labelOf(first.date)} to ${labelOf(last.date)}`}.`
    },
    svg("line", { class: "grid", x1: 0, x2: width, y1: 0.5, y2: 0.5, "vector-effect": "non-scaling-stroke" }),
    svg("line", { class: "grid", x1: 0, x2: width, y1: height / 2, y2: height / 2, "vector-effect": "non-scaling-stroke" }),
    svg("line", { class: "axis", x1: 0, x2: width, y1: height - 0.5, y2: height - 0.5, "vector-effect": "non-scaling-stroke" }),
    ...days.map((day, i) => {
      const x = i * slot + gap / 2
      const barWidth = slot - gap
      const title = svg("title", {})
      title.textContent = `${labelOf(day.date)}: ${day.created} payment${day.created === 1 ? "" : "s"}, ${day.succeeded} succeeded`
      return svg(
        "g",
        { class: "bar", "data-date": day.date, "data-created": day.created, "data-succeeded": day.succeeded },
        title,
        // An empty day keeps a hairline, so the days stay countable.
        svg("rect", { class: "created", x, width: barWidth, y: day.created === 0 ? height - 1 : y(day.created), height: day.created === 0 ? 1 : height - y(day.created) }),
        day.succeeded === 0 ? null : svg("rect", { class: "succeeded", x, width: barWidth, y: y(day.succeeded), height: height - y(day.succeeded) })
      )
    })
  )
  return h(
    "figure",
    { class: "volume-chart" },
    h("div", { class: "chart-area" },
      h("div", { class: "chart-scale", "aria-hidden": "true" }, h("span", {}, String(top)), h("span", {}, String(top / 2)), h("span", {}, "0")),
      chart),
    h("div", { class: "chart-dates", "aria-hidden": "true" },
      h("span", {}, first === undefined ? "" : labelOf(first.date)),
      h("span", {}, last === undefined ? "" : `${labelOf(last.date)} (today, UTC)`)),
    h("figcaption", { class: "chart-legend" },
      h("span", { class: "key created" }, "Created"),
      h("span", { class: "key succeeded" }, "Succeeded"),
      h("span", { class: "muted" }, `${created} created, ${succeeded} succeeded`))
  )
}
