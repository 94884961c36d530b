// The domain package is embedded by other teams: it may depend on `effect` only, must read time and
// randomness through Effect's Clock/Random (or a port) so that tests are deterministic, and knows
// nothing of the HTTP API that serves it (statuses, its modules, its request headers, its wire shapes).
import { readFileSync, readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g

const impurities = [
  { pattern: /\bDate\.now\s*\(/, reason: "reads wall-clock time (use Clock)" },
  { pattern: /\bnew\s+Date\s*\(\s*\)/, reason: "reads wall-clock time (use Clock)" },
  { pattern: /\bperformance\.now\s*\(/, reason: "reads wall-clock time (use Clock)" },
  { pattern: /\bprocess\.hrtime\b/, reason: "reads wall-clock time (use Clock)" },
  { pattern: /\bMath\.random\s*\(/, reason: "reads randomness directly (use Random or a port)" },
  { pattern: /\bcrypto\.(getRandomValues|randomUUID|randomBytes)\b/, reason: "reads randomness directly (use Random or a port)" },
  { pattern: /\b(httpApiStatus|HttpApi\w*|HttpServer\w*)\b/, reason: "holds an HTTP status or API (the HTTP API maps errors to statuses)" },
  { pattern: /\b(Svc-Version|Idempotency-Key|Merchant-Id|Api-Key|App-Id|Client-Id)\b/i, reason: "names a header of the HTTP API" },
  { pattern: /\bidentifier\s*:/, reason: "names a wire shape (an OpenAPI component: the HTTP API's wire schemas name them)" },
  { pattern: /\bwithDecodingDefaultKey\b/, reason: "decodes a wire field (missing keys are the HTTP API's wire schemas' concern)" }
]

const allowedImport = (specifier) =>
  specifier === "effect" || (specifier.startsWith("effect/") && !specifier.startsWith("effect/http")) || specifier.startsWith(".")

/** Strip comments so that JSDoc examples do not count as code. */
const stripComments = (source) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1")

/** Violations in one file's source text. */
export const findViolations = (file, source) => {
  const code = stripComments(source)
  const found = []
  for (const match of code.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2] ?? match[3]
    if (!allowedImport(specifier)) found.push(`${file}: imports "${specifier}" (the domain may import only effect, and none of its HTTP modules)`)
  }
  code.split("\n").forEach((line, index) => {
    for (const { pattern, reason } of impurities) {
      if (pattern.test(line)) found.push(`${file}:${index + 1}: ${reason}`)
    }
  })
  return found
}

const sourceFiles = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : []
  })

/** Violations across the domain package's sources (tests excluded: they may use anything). */
export const checkDomain = (root) =>
  sourceFiles(join(root, "packages/domain/src")).flatMap((path) =>
    findViolations(relative(root, path), readFileSync(path, "utf8"))
  )
