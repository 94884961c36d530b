import { checkDomain } from "./domain-purity.mjs"

const violations = checkDomain(process.cwd())
if (violations.length > 0) {
  console.error("packages/domain must stay pure:\n" + violations.map((v) => `  - ${v}`).join("\n"))
  process.exit(1)
}
console.log("domain purity: ok")
