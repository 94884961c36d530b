// The imports of a source file as the TypeScript compiler sees them: parsed (so comments, strings, template
// literals and regular expressions never count), type-only ones marked, and resolved to the file they load.
// Used by the dependency rule and the circle check (scripts/boundaries.mjs, scripts/circles.mjs).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve, sep } from "node:path"
import ts from "typescript"

const isFile = (path) => existsSync(path) && statSync(path).isFile()

/** The source files under `dir` (node_modules aside). */
export const sourceFiles = (dir) =>
  !existsSync(dir) ? [] : readdirSync(dir).flatMap((name) => {
    if (name === "node_modules") return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(name) ? [path] : []
  })

const parsed = new Map()

/**
 * Every import of `file`: `{ specifier, typeOnly }`. Type-only means erased before the file runs: `import type`,
 * `export type … from`, `import("…")` in a type, JSDoc's `{import("…").T}` and `@import`. `import { type A } from` is not: the
 * compiler (verbatimModuleSyntax) and Node's type stripping keep the import, so the module still loads.
 */
export const importsOf = (file) => {
  const source = readFileSync(file, "utf8")
  const cached = parsed.get(file)
  if (cached?.source === source) return cached.imports
  const imports = []
  const add = (literal, typeOnly) => {
    if (literal !== undefined && ts.isStringLiteralLike(literal)) imports.push({ specifier: literal.text, typeOnly })
  }
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly === true)
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], false)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true)
    else if (ts.isJSDocImportTag(node)) add(node.moduleSpecifier, true)
    for (const doc of node.jsDoc ?? []) visit(doc)
    if (!ts.isImportDeclaration(node) && !ts.isExportDeclaration(node)) ts.forEachChild(node, visit)
  }
  // JSDoc types are the compiler's only in JavaScript files. The whole tree is walked only where an import can hide
  // in it (`import(`, `@import`, `declare module`); elsewhere the top-level statements hold them all.
  const js = /\.[cm]?js$/.test(file)
  const tree = ts.createSourceFile(file, source, {
    languageVersion: ts.ScriptTarget.Latest,
    jsDocParsingMode: js ? ts.JSDocParsingMode.ParseAll : ts.JSDocParsingMode.ParseNone
  })
  if (/\bimport\s*\(|@import\b|\bdeclare\s+module\b/.test(source)) visit(tree)
  else for (const statement of tree.statements) if (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) visit(statement)
  parsed.set(file, { source, imports })
  return imports
}

const defaultOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  allowJs: true
}

// The compiler options of the tsconfig.json nearest to `directory` (inside `root`): the browser modules
// resolve through their own (`rootDirs`: the dashboard is served from one directory with the portal's modules).
const options = new Map()
const optionsFor = (root, directory) => {
  if (!options.has(directory)) {
    const config = join(directory, "tsconfig.json")
    const parent = dirname(directory)
    options.set(directory, isFile(config)
      ? { ...defaultOptions, ...ts.getParsedCommandLineOfConfigFile(config, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })?.options, allowJs: true }
      : directory === root || !parent.startsWith(root) ? defaultOptions : optionsFor(root, parent))
  }
  return options.get(directory)
}

// A workspace by name (`@paygate/x`, `@paygate/x/sub`): the file its package.json exports, as Node resolves it.
const resolveWorkspace = (root, specifier) => {
  const match = /^@paygate\/([^/]+)(\/.+)?$/.exec(specifier)
  const manifest = match === null ? undefined : join(root, "packages", match[1], "package.json")
  if (manifest === undefined || !isFile(manifest)) return undefined
  const exports = JSON.parse(readFileSync(manifest, "utf8")).exports
  const target = typeof exports === "string" ? (match[2] === undefined ? exports : undefined) : exports?.[`.${match[2] ?? ""}`]
  return typeof target === "string" && isFile(join(root, "packages", match[1], target)) ? join(root, "packages", match[1], target) : undefined
}

/**
 * The file of `root` that `specifier` in `file` loads, or undefined (a package of node_modules, a file that does
 * not exist). A relative path naming a file is that file (Node's rule, and the repository names them in full);
 * otherwise the compiler's resolution with the file's tsconfig.
 */
export const resolveImport = (root, file, specifier) => {
  if (specifier.startsWith("@paygate/")) return resolveWorkspace(root, specifier)
  if (!specifier.startsWith(".")) return undefined
  const literal = resolve(dirname(file), specifier)
  if (isFile(literal)) return literal
  const host = { fileExists: isFile, readFile: (path) => readFileSync(path, "utf8"), directoryExists: (path) => existsSync(path) }
  const resolved = ts.resolveModuleName(specifier, file, optionsFor(root, dirname(file)), host).resolvedModule?.resolvedFileName
  return resolved !== undefined && resolved.startsWith(root + sep) && !resolved.includes(`${sep}node_modules${sep}`) ? resolved : undefined
}
