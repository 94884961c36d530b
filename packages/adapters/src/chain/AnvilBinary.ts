/**
 * Where the anvil executable is. The npm package `@foundry-rs/anvil` is a small launcher (`bin.mjs`)
 * whose optional dependency for the current platform, e.g. `@foundry-rs/anvil-linux-amd64`, ships the
 * native binary at `bin/anvil`. We run that binary directly rather than the Node launcher, so that
 * signals (and `SIGKILL`) reach anvil itself and no wrapper process is left behind.
 *
 * When the platform package is missing (installed with `--omit=optional`, or an unlisted platform),
 * the package's postinstall script downloads the same binary from the npm registry into the package
 * directory; that location is tried as well.
 *
 * @module
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Result } from "effect"

/** npm's `process.platform`-`process.arch` → the `@foundry-rs` package that ships that binary. */
const platformPackages: Readonly<Record<string, string>> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64"
}

/**
 * The path of the anvil binary from the installed `@foundry-rs/anvil` package, or a phrase saying
 * what was looked for. Looks, in order, at the platform package's `bin/anvil` (resolved from the
 * launcher package, so nested installs work too), then where the launcher's postinstall and
 * `bin.mjs` put a downloaded binary.
 */
export const resolveAnvilBinary = (
  platform: string = process.platform,
  arch: string = process.arch
): Result.Result<string, string> => {
  const executable = platform === "win32" ? "anvil.exe" : "anvil"
  const here = createRequire(import.meta.url)
  let launcherManifest: string
  try {
    launcherManifest = here.resolve("@foundry-rs/anvil/package.json")
  } catch {
    return Result.fail("the npm package @foundry-rs/anvil is not installed")
  }
  const launcherDir = dirname(launcherManifest)
  const candidates: Array<string> = []
  const platformPackage = platformPackages[`${platform}-${arch}`]
  if (platformPackage !== undefined) {
    try {
      candidates.push(createRequire(launcherManifest).resolve(`${platformPackage}/bin/${executable}`))
    } catch {
      // Not installed: fall through to the downloaded copies.
    }
  }
  candidates.push(join(launcherDir, executable), join(launcherDir, "..", "dist", executable))
  const found = candidates.find((candidate) => existsSync(candidate))
  if (found !== undefined) return Result.succeed(found)
  return Result.fail(
    `no anvil binary for ${platform}-${arch}: ${platformPackage ?? "no @foundry-rs platform package"} is not ` +
      `installed and the launcher's postinstall left none in ${launcherDir}`
  )
}
