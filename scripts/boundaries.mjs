// The dependency rule between the workspaces (run by `npm run lint`, tested in test/boundaries.test.ts):
//
// - package sources: domain → effect only; observability (the shared metrics) → domain; adapters →
//   domain + observability; http and worker → domain + observability (they see ports only: the chain,
//   the database and the settings they need are ports and services the composition root provides);
//   cli → domain + adapters (never each other).
//   A port's SQL adapter (`Sql*.ts`) never imports another: what they share lives in a module of its own;
//   http and worker sources import no SQL module (they reach the database through ports).
//   Each `@paygate/*` a package's sources import is declared in its package.json, and a package declares
//   no `@paygate/*` the rule forbids. Relative imports stay inside the package's `src`.
// - package tests may import their own package, the packages its sources may import and the adapters
//   (by name: the public entries; the adapters declared as devDependencies), and the shared harness in
//   `test/support`; never another package's `src` (internals included) or `test/` by path or by name
//   (`@paygate/x/src/…`). A test that needs http
//   and the worker together is a cross-package test (`test/`). Each `@paygate/*` a package's tests
//   import is declared in its package.json too.
// - no circles: files never import each other, directly or around a circle (scripts/circles.mjs).
// - cross-package tests (`test/`) and the composition root (`app/`) import packages by name only;
//   the composition root's own package.json (`@paygate/app`) declares each `@paygate/*` it imports.
import { existsSync, readFileSync, readdirSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { circlesIn } from "./circles.mjs"
import { importsOf, sourceFiles } from "./imports.mjs"

/** Which workspaces each package's sources may import. */
export const allowedDependencies = {
  domain: [],
  observability: ["domain"],
  adapters: ["domain", "observability"],
  http: ["domain", "observability"],
  worker: ["domain", "observability"],
  cli: ["domain", "adapters"]
}

/**
 * Which workspaces a package's tests may import besides those: the adapters, so that a package whose
 * sources see only ports can test them over the real implementations (declared as devDependencies).
 */
export const testOnlyDependencies = {
  http: ["adapters"],
  worker: ["adapters"],
  cli: ["adapters"]
}

// The packages whose sources see the domain's ports only, never the database behind them.
const portsOnly = ["http", "worker"]

const testDependenciesOf = (pkg) => [...new Set([...(allowedDependencies[pkg] ?? []), ...(testOnlyDependencies[pkg] ?? [])])]

// Where a file lives: { kind: "src" | "test", pkg } in a package, "support" / "crossTest" under test/, "app", or "other".
const zoneOf = (root, file) => {
  const parts = relative(root, file).split(sep)
  if (parts[0] === "packages" && parts.length > 2) {
    const kind = parts[2] === "src" ? "src" : parts[2] === "test" ? "test" : "other"
    return { kind, pkg: parts[1], internal: kind === "src" && parts[3] === "internal", name: parts.at(-1) }
  }
  if (parts[0] === "test") return { kind: parts[1] === "support" ? "support" : "crossTest" }
  if (parts[0] === "app") return { kind: "app" }
  return { kind: "other" }
}

// A port's SQL adapter (`Sql*.ts` in the adapters' src, `SqlPersistence.ts`, which composes them, aside).
const isPortAdapter = (zone) => zone.pkg === "adapters" && /^Sql(?!Persistence\.)[A-Za-z]+\.ts$/.test(zone.name)

/** What `file` imports, as the compiler parses it (comments and strings never count). */
const specifiersOf = (file) => importsOf(file).map((i) => i.specifier)

const packageOf = (specifier) => /^@paygate\/([^/]+)/.exec(specifier)?.[1]

/** Violations of one import of `file` (paths relative to `root`). */
export const checkImport = (root, file, specifier) => {
  const from = zoneOf(root, file)
  const where = `${relative(root, file)}: imports "${specifier}"`
  if (specifier.startsWith(".")) {
    const target = zoneOf(root, resolve(dirname(file), specifier))
    if (from.kind === "src") {
      if (target.kind !== "src" || target.pkg !== from.pkg) return [`${where} (a package's sources stay inside its src)`]
      if (isPortAdapter(from) && isPortAdapter(target)) {
        return [`${where} (an adapter does not reach into another: share rows and statements through a module of their own)`]
      }
      return []
    }
    if (target.kind === "src" || target.kind === "test") {
      if ((from.kind === "test") && target.pkg === from.pkg) return []
      return [`${where} (another package's ${target.kind === "test" ? "test/" : target.internal ? "src/internal" : "src"}: import it by name, or share through test/support)`]
    }
    if (from.kind === "app" && target.kind !== "app") return [`${where} (the composition root imports packages by name)`]
    return []
  }
  const pkg = packageOf(specifier)
  if (pkg !== undefined && /^@paygate\/[^/]+\/(src|test)(\/|$)/.test(specifier)) {
    return [`${where} (a package's files by name: import its public entry, or share through test/support)`]
  }
  if (from.kind === "src" && from.pkg === "domain" && !(specifier === "effect" || specifier.startsWith("effect/"))) {
    return [`${where} (the domain may import only effect)`]
  }
  if (from.kind === "src" && portsOnly.includes(from.pkg) && /^(@effect\/sql|effect\/sql)/.test(specifier)) {
    return [`${where} (${from.pkg} reaches the database through the domain's ports: SQL is the adapters')`]
  }
  const mayImport = from.kind === "src" ? allowedDependencies[from.pkg] ?? [] : testDependenciesOf(from.pkg)
  if ((from.kind === "src" || from.kind === "test") && pkg !== undefined && pkg !== from.pkg && !mayImport.includes(pkg)) {
    const allowed = mayImport.map((p) => `@paygate/${p}`).join(", ") || "no workspace"
    return [from.kind === "src"
      ? `${where} (${from.pkg} may import ${allowed})`
      : `${where} (${from.pkg}'s tests may import it and ${allowed}; tests of several packages together go in test/)`]
  }
  return []
}

const workspaces = (root) => existsSync(join(root, "packages")) ? readdirSync(join(root, "packages")) : []

// The `@paygate/*` a manifest declares in `fields` (for the sources: dependencies and peerDependencies).
const declaredIn = (manifest, fields = ["dependencies", "peerDependencies"]) => {
  const json = JSON.parse(readFileSync(manifest, "utf8"))
  return fields.flatMap((field) => Object.keys(json[field] ?? {})).map(packageOf).filter(Boolean)
}

const workspacesImportedBy = (files, self) =>
  new Set(files.flatMap((file) => specifiersOf(file).map(packageOf).filter((dep) => dep !== undefined && dep !== self)))

// The composition root (`app/`, `@paygate/app`) declares in its own manifest each workspace it imports.
const checkRootManifest = (root) => {
  const manifest = join(root, "app", "package.json")
  if (!existsSync(manifest)) return []
  const declared = declaredIn(manifest)
  return [...workspacesImportedBy(sourceFiles(join(root, "app")), "app")].filter((dep) => !declared.includes(dep)).map((dep) =>
    `app/package.json: the composition root imports @paygate/${dep} but does not declare it`
  )
}

// Declared `@paygate/*` dependencies against the rule and against what the sources and tests import.
const checkManifests = (root) =>
  workspaces(root).flatMap((pkg) => {
    const manifest = join(root, "packages", pkg, "package.json")
    if (!existsSync(manifest)) return []
    const sources = declaredIn(manifest)
    const dev = declaredIn(manifest, ["devDependencies"])
    const declared = { src: sources, test: [...sources, ...dev] }
    const allowed = { src: allowedDependencies[pkg] ?? [], test: testDependenciesOf(pkg) }
    const wrong = [["src", sources], ["test", dev]].flatMap(([kind, deps]) =>
      deps.filter((dep) => !allowed[kind].includes(dep)).map((dep) =>
        `packages/${pkg}/package.json: declares @paygate/${dep} (${pkg}${kind === "src" ? "" : "'s tests"} may depend on ${allowed[kind].map((p) => `@paygate/${p}`).join(", ") || "no workspace"})`
      )
    )
    const undeclared = ["src", "test"].flatMap((kind) =>
      [...workspacesImportedBy(sourceFiles(join(root, "packages", pkg, kind)), pkg)].filter((dep) => !declared[kind].includes(dep)).map((dep) =>
        `packages/${pkg}/package.json: its ${kind === "src" ? "sources" : "tests"} import @paygate/${dep} but do not declare it`
      )
    )
    return [...wrong, ...undeclared]
  })

/** Every violation of the rule under `root`. */
export const checkBoundaries = (root) => {
  const files = [
    ...workspaces(root).flatMap((pkg) => [...sourceFiles(join(root, "packages", pkg, "src")), ...sourceFiles(join(root, "packages", pkg, "test"))]),
    ...sourceFiles(join(root, "test")),
    ...sourceFiles(join(root, "app"))
  ]
  return [
    ...circlesIn(root),
    ...files.flatMap((file) => specifiersOf(file).flatMap((specifier) => checkImport(root, file, specifier))),
    ...checkManifests(root),
    ...checkRootManifest(root)
  ]
}
