/**
 * The service as it runs: `app/main.ts`, `app/api.ts` and `app/worker.ts`, and the CLIs (`app/admin.ts`,
 * `scripts/pay.ts`, `scripts/subscribe.ts`, `scripts/webhooks.ts`), bundled into `dist/` with the code they
 * reach, minified. Node then loads a few files instead of every module of the dependencies with
 * its doc comments (effect's index alone pulls all of effect), and V8 keeps their text in memory: the
 * process starts on less CPU and holds less. Every npm script that runs one of them, and `npm test`, calls
 * it first; it builds only when a source, a dependency or this file changed since the last build.
 *
 * Each build lives in `dist/<key>/`, `key` a digest of the inputs' sizes and times; `dist/<entry>.mjs`
 * are links to the current one, swapped by a rename, so that a process
 * starting while another builds loads one whole build or the other.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const dist = join(root, "dist")
const entries = {
  main: "app/main.ts",
  api: "app/api.ts",
  worker: "app/worker.ts",
  admin: "app/admin.ts",
  pay: "scripts/pay.ts",
  subscribe: "scripts/subscribe.ts",
  webhooks: "scripts/webhooks.ts"
}

// Left to Node: they load files beside their own modules (PGlite's WebAssembly) or are CommonJS with
// optional requires (pg), and each is imported on first use or by one adapter only.
const external = [/^node:/, /^@electric-sql\//, /^ajv(-formats)?(\/|$)/, /^qrcode(\/|$)/, /^pg(\/|$)/]

const sourceFile = (name: string) => name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")

const walk = (directory: string, into: Array<string>): Array<string> => {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "test") walk(path, into)
    } else if (sourceFile(entry.name)) into.push(path)
  }
  return into
}

/** What a build of `root` depends on: the sources it bundles (this script among them) and the installed dependencies. */
const inputs = (root: string) => [
  ...walk(join(root, "app"), []),
  ...readdirSync(join(root, "scripts")).filter(sourceFile).map((name) => join(root, "scripts", name)),
  ...readdirSync(join(root, "packages")).flatMap((name) => (existsSync(join(root, "packages", name, "src")) ? walk(join(root, "packages", name, "src"), []) : [])),
  join(root, "node_modules/.package-lock.json")
]

/** The build's name: a digest of its inputs' paths, sizes and modification times. */
export const inputsKey = (root: string) => {
  const hash = createHash("sha256")
  for (const path of inputs(root).sort()) {
    const { size, mtimeMs } = statSync(path)
    hash.update(`${relative(root, path)} ${size} ${mtimeMs}\n`)
  }
  return hash.digest("hex").slice(0, 16)
}

/**
 * Every bundled module keeps its own `import.meta.url`: the service finds its pages, its worker
 * thread's module and anvil's binary beside its sources, where they are.
 */
const ownLocation = {
  name: "own-location",
  transform(code: string, id: string) {
    if (!code.includes("import.meta.url")) return null
    return code.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(id).href))
  }
}

const bundle = async (into: string) => {
  const { rolldown } = await import("rolldown")
  const build = await rolldown({
    cwd: root,
    input: Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, join(root, path)])),
    platform: "node",
    external,
    plugins: [ownLocation]
  })
  await build.write({
    dir: into,
    format: "esm",
    entryFileNames: "[name].mjs",
    chunkFileNames: "[name]-[hash].mjs",
    // Names kept: errors and logs name functions and classes as they are written.
    minify: { compress: { keepNames: { function: true, class: true } }, mangle: { keepNames: true } }
  })
  await build.close()
}

/** Points `dist/<name>.mjs` at the build `key`; a rename, so a reader sees the old link or the new. */
const link = (key: string) => {
  for (const name of Object.keys(entries)) {
    const target = join(key, `${name}.mjs`)
    const path = join(dist, `${name}.mjs`)
    if (existsSync(path) && readlinkSync(path) === target) continue
    const temporary = `${path}.${process.pid}`
    rmSync(temporary, { force: true })
    symlinkSync(target, temporary)
    renameSync(temporary, path)
  }
}

// Older builds stay a while: a process started from one still loads its lazy chunks from it.
const keptBuilds = 3
// A build in progress (`.<key>.<pid>`) is another start's; one this old was left by a killed build.
const abandonedAfterMs = 60 * 60 * 1000

/** Removes from `directory` the builds older than the newest few besides `key`, and abandoned ones. */
export const prune = (directory: string, key: string) => {
  const directories = readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== key)
    .map((entry) => ({ name: entry.name, path: join(directory, entry.name), time: statSync(join(directory, entry.name)).mtimeMs }))
    .sort((a, b) => b.time - a.time)
  const builds = directories.filter((directory) => !directory.name.startsWith("."))
  const abandoned = directories.filter((directory) => directory.name.startsWith(".") && Date.now() - directory.time > abandonedAfterMs)
  for (const old of [...builds.slice(keptBuilds - 1), ...abandoned]) rmSync(old.path, { recursive: true, force: true })
}

/** Builds `dist/` unless it is current; returns whether it built. */
export const ensureBuilt = async (say: (line: string) => void): Promise<boolean> => {
  const key = inputsKey(root)
  const current = join(dist, key)
  if (existsSync(join(current, "main.mjs"))) {
    link(key)
    return false
  }
  mkdirSync(dist, { recursive: true })
  const started = Date.now()
  say("building the service into dist/ (once after an install or a change of its sources; a few seconds)")
  const temporary = join(dist, `.${key}.${process.pid}`)
  rmSync(temporary, { recursive: true, force: true })
  await bundle(temporary)
  try {
    renameSync(temporary, current)
  } catch {
    // Another start built the same sources meanwhile: theirs is as good.
    rmSync(temporary, { recursive: true, force: true })
  }
  link(key)
  prune(dist, key)
  say(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return true
}

if (import.meta.main) {
  await ensureBuilt((line) => process.stderr.write(`paygate: ${line}\n`)).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error)
    process.stderr.write(`paygate: the service could not be built into ${dist}: ${reason}\n`)
    process.exit(1)
  })
}
