/**
 * What `npm start` settles before it chooses its ports, on the embedded database (the local
 * set-up), where one service owns the data directory:
 *
 * - a paygate already running on it: the start prints one line with that one's address and stops
 *   (exit code 0: what was asked for, a running paygate, is there);
 * - a local chain left running by a start that was killed (kill -9 gives it no chance to stop its
 *   anvil): stopped, once its recorded pid is checked to be an anvil on this data directory's
 *   chain state, so that the chain gets its port (8545) again instead of moving to another.
 *
 * @module
 */
import { Chain, Configuration, DataDirLock, PrivateFiles } from "@paygate/adapters"
import { Effect, Option } from "effect"
import { readFile, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"

/** The local chain's state file, kept beside the embedded database in `dataDir`. */
export const localChainStateFile = (dataDir: string): string => join(`${dataDir}.chain`, "state.json")

// The API address of the service that holds the data directory, beside its lock: its pid and URL.
const addressFile = (dataDir: string) => `${resolve(dataDir)}.address`

/** Records where this process's API listens, for a second start to name it. */
export const publishAddress = (dataDir: string, url: string): Promise<void> =>
  writeFile(addressFile(dataDir), `${process.pid}\n${url}\n`, { mode: PrivateFiles.fileMode })

// The address `pid` published, if it did.
const addressOf = async (dataDir: string, pid: number): Promise<string | undefined> => {
  const [owner, url] = (await readFile(addressFile(dataDir), "utf8").catch(() => "")).split("\n")
  return Number(owner) === pid && url !== undefined && url !== "" ? url : undefined
}

/** What the start does about an earlier one: go on, or stop after printing `line` with `exitCode`. */
export type EarlierStart =
  | { readonly _tag: "Proceed" }
  | { readonly _tag: "Stop"; readonly line: string; readonly exitCode: number }

/** See the module documentation. */
export const settleEarlierStart = Effect.gen(function*() {
  if (Option.isSome(yield* Configuration.databaseUrl)) return { _tag: "Proceed" } as EarlierStart
  const dataDir = yield* Configuration.dataDir
  const owner = yield* Effect.promise(() => DataDirLock.ownerOf(dataDir))
  if (owner !== undefined) {
    const address = yield* Effect.promise(() => addressOf(dataDir, owner.pid))
    return address === undefined
      ? { _tag: "Stop", exitCode: 1, line: `paygate: the database in ${dataDir} is used by process ${owner.pid} (a start not listening yet, or npm run admin): try again in a moment.` }
      : { _tag: "Stop", exitCode: 0, line: `paygate is already running at ${address} (process ${owner.pid}).` }
  }
  if (!(yield* Chain.ChainSource.isConfigured)) yield* Chain.Anvil.stopLeftBehind(localChainStateFile(dataDir))
  return { _tag: "Proceed" } as EarlierStart
})
