// No circles (run by `npm run lint` through scripts/boundaries.mjs, tested in test/import-circles.test.ts): files never
// import each other, directly or around a circle. Type-only imports count: they are erased before the code runs, so
// such a circle never breaks a start, but the files still cannot be read, moved or tested one without the other.
import { join, relative } from "node:path"
import { importsOf, resolveImport, sourceFiles } from "./imports.mjs"

// The shortest circle through `start` inside one tangle (`members`), as the path of edges it follows.
const circleThrough = (start, edges, members) => {
  const cameFrom = new Map([[start, undefined]])
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()
    for (const edge of edges.get(file)) {
      if (!members.has(edge.target)) continue
      if (edge.target === start) {
        const path = [edge]
        for (let step = cameFrom.get(file); step !== undefined; step = cameFrom.get(step.from)) path.unshift(step)
        return path
      }
      if (cameFrom.has(edge.target)) continue
      cameFrom.set(edge.target, { ...edge, from: file })
      queue.push(edge.target)
    }
  }
  return []
}

/**
 * One line per tangle of files that import each other (a strongly connected component of the import graph),
 * naming one circle in it in import order, `→ (type)` marking a type-only import.
 */
export const importCircles = (root, files) => {
  const edges = new Map(files.map((file) => [
    file,
    importsOf(file).map(({ specifier, typeOnly }) => ({ target: resolveImport(root, file, specifier), typeOnly }))
      .filter((edge) => edge.target !== undefined)
  ]))
  // Tarjan's strongly connected components.
  const order = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const tangles = []
  const visit = (file) => {
    order.set(file, order.size)
    low.set(file, order.get(file))
    stack.push(file)
    onStack.add(file)
    for (const { target } of edges.get(file)) {
      if (!edges.has(target)) continue
      if (!order.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file), low.get(target)))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file), order.get(target)))
    }
    if (low.get(file) !== order.get(file)) return
    const component = stack.splice(stack.indexOf(file))
    for (const member of component) onStack.delete(member)
    if (component.length > 1 || edges.get(file).some((edge) => edge.target === file)) tangles.push(component)
  }
  for (const file of edges.keys()) if (!order.has(file)) visit(file)
  return tangles.map((component) => {
    const name = (file) => relative(root, file)
    const start = [...component].sort((a, b) => name(a).localeCompare(name(b)))[0]
    const circle = circleThrough(start, edges, new Set(component))
    const path = [name(start), ...circle.map((edge) => `${edge.typeOnly ? "→ (type) " : "→ "}${name(edge.target)}`)].join(" ")
    const others = component.length - circle.length
    return `import circle: ${path}${others > 0 ? ` (and ${others} more files in the same tangle)` : ""}; ` +
      "move what they share into a module of its own"
  }).sort()
}

/** The circles among the repository's code: the packages (sources and tests), the cross-package tests, app, bench and scripts. */
export const circlesIn = (root) => importCircles(root, ["packages", "test", "app", "bench", "scripts"].flatMap((dir) => sourceFiles(join(root, dir))))
