import { checkBoundaries } from "./boundaries.mjs"

const violations = checkBoundaries(process.cwd())
if (violations.length > 0) {
  console.error("The dependency rule between packages is broken (scripts/boundaries.mjs):\n" + violations.map((v) => `  - ${v}`).join("\n"))
  process.exit(1)
}
console.log("package boundaries: ok")
