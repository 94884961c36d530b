/**
 * A local anvil node (Foundry's development chain) as a scoped resource: started from the binary that
 * the npm package `@foundry-rs/anvil` ships (see `AnvilBinary.ts`), on 127.0.0.1 and a port the OS
 * picks (or a fixed one), ready once it answers `eth_chainId`, and stopped when the scope closes.
 *
 * The node funds the ten default accounts of `AnvilAccounts.ts` with 10,000 ETH each. With a
 * `stateFile` the chain survives restarts: anvil loads the file at start and writes it every second
 * and on exit, so blocks, transactions and balances are still there after a restart (or a kill -9,
 * up to the last second). Its pid is kept beside the file, so a node left behind by a host that
 * was killed is stopped before a new one starts on the same state.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { Context, Duration, Effect, Layer, Predicate, Result, Schedule, Schema, type Scope } from "effect"
import { resolveAnvilBinary } from "./AnvilBinary.ts"

/** Options of {@link start}. */
export interface AnvilOptions {
  /** Chain id the node reports; default 31337 (anvil's own default). */
  readonly chainId?: number | undefined
  /** Seconds between blocks (interval mining, fractions allowed); unset mines each transaction at once. */
  readonly blockTimeSeconds?: number | undefined
  /** Path of the anvil executable; default the one from `@foundry-rs/anvil`. */
  readonly binary?: string | undefined
  /** How long start-up may take before giving up; default 20 seconds. */
  readonly startTimeout?: Duration.Input | undefined
  /** Port on 127.0.0.1; default 0 (one the OS picks). */
  readonly port?: number | undefined
  /** Where the chain's state is kept across restarts; default none (a fresh chain every start). */
  readonly stateFile?: string | undefined
  /** Another node whose chain this one continues from `forkBlockNumber` on (its own blocks after it). */
  readonly forkUrl?: string | undefined
  /** The block of `forkUrl` the fork starts at; default its head. */
  readonly forkBlockNumber?: number | undefined
}

/** A running anvil node. */
export interface AnvilNode {
  /** JSON-RPC over HTTP, e.g. `http://127.0.0.1:40629`. */
  readonly rpcUrl: string
  readonly chainId: number
  readonly port: number
}

/** The anvil node of the surrounding layer. */
export class Anvil extends Context.Service<Anvil, AnvilNode>()("@paygate/adapters/chain/Anvil") {}

/** Anvil could not be found or did not start. */
export class AnvilError extends Schema.TaggedError<AnvilError>()("AnvilError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect())
}) {}

const defaultChainId = 31337
const LISTENING = /Listening on 127\.0\.0\.1:(\d+)/
/** Output kept for error messages; the rest is read and dropped so that anvil never blocks on a full pipe. */
const keptOutputChars = 4_000

/** Spawns anvil; the finalizer stops it (SIGTERM, then SIGKILL after two seconds). */
const spawnNode = (binary: string, args: ReadonlyArray<string>, pidFile: string | undefined) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] })
        if (pidFile !== undefined && child.pid !== undefined) writeFileSync(pidFile, String(child.pid))
        const output = { text: "" }
        const keep = (chunk: Buffer) => {
          output.text = (output.text + chunk.toString("utf8")).slice(-keptOutputChars)
        }
        child.stdout?.on("data", keep)
        child.stderr?.on("data", keep)
        // A failed spawn (e.g. ENOENT) is reported as an event; keep it for the error message.
        const failure: { error?: Error } = {}
        child.on("error", (error) => {
          failure.error = error
        })
        // Should the host die without closing the scope, do not leave anvil running.
        const onExit = () => child.kill("SIGKILL")
        process.once("exit", onExit)
        return { child, output, onExit, failure }
      },
      catch: (cause) => new AnvilError({ message: `Could not spawn anvil (${binary}).`, cause })
    }),
    ({ child, onExit }) =>
      Effect.callback<void>((resume) => {
        process.off("exit", onExit)
        if (pidFile !== undefined) rmSync(pidFile, { force: true })
        // Never started (no pid) or already gone: nothing to stop.
        if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const timer = setTimeout(() => child.kill("SIGKILL"), 2_000)
        child.once("exit", () => {
          clearTimeout(timer)
          resume(Effect.void)
        })
        child.kill("SIGTERM")
      })
  )

/**
 * Stops the anvil of an earlier host that was killed before it could stop it (its pid file is
 * still there and the process is an anvil on `stateFile`): two nodes must not write the same state
 * file, and the port it holds is the one the next start wants.
 */
export const stopLeftBehind = (stateFile: string) => stopLeftBehindAt(`${stateFile}.pid`, stateFile)

const stopLeftBehindAt = (pidFile: string, stateFile: string) =>
  Effect.gen(function*() {
    const pid = Number(existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim() : NaN)
    if (!Number.isSafeInteger(pid) || pid <= 0) return
    const command = yield* Effect.sync(() => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8")
      } catch {
        return "" // gone already
      }
    })
    if (!command.includes("anvil") || !command.includes(stateFile)) return
    yield* Effect.logWarning(`stopping the local chain (pid ${pid}) left running by an earlier start that was killed`)
    process.kill(pid, "SIGKILL")
    yield* Effect.sleep(Duration.millis(20)).pipe(
      Effect.repeat({ while: () => existsSync(`/proc/${pid}`), times: 250 })
    )
  })

/** Waits for anvil's "Listening on 127.0.0.1:PORT" line; fails if it exits (or never starts) first. */
const listeningPort = (
  child: ChildProcess,
  output: { readonly text: string },
  failure: { readonly error?: Error },
  port: number
) =>
  Effect.callback<number, AnvilError>((resume) => {
    const check = () => {
      const match = LISTENING.exec(output.text)
      if (match?.[1] !== undefined) resume(Effect.succeed(Number(match[1])))
    }
    const exited = (code: number | null, signal: string | null) =>
      resume(Effect.fail(
        new AnvilError({
          message: /Address already in use/.test(output.text)
            ? `the local chain's port ${port} is in use (is paygate already running?)`
            : `anvil exited (${signal ?? code}) before listening:\n${output.text}`
        })
      ))
    const failed = (cause: Error) => resume(Effect.fail(new AnvilError({ message: "Could not run anvil.", cause })))
    if (failure.error !== undefined) {
      failed(failure.error)
      return
    }
    child.stdout?.on("data", check)
    child.once("exit", exited)
    child.once("error", failed)
    check()
    return Effect.sync(() => {
      child.stdout?.off("data", check)
      child.off("exit", exited)
      child.off("error", failed)
    })
  })

/** One `eth_chainId` call; fails unless the node answers with `chainId`. */
const answersChainId = (rpcUrl: string, chainId: number) =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
        signal
      })
      const body: unknown = await response.json()
      const result = Predicate.hasProperty(body, "result") ? body.result : undefined
      if (result !== `0x${chainId.toString(16)}`) throw new Error(`eth_chainId answered ${JSON.stringify(body)}`)
    },
    catch: (cause) => new AnvilError({ message: `anvil at ${rpcUrl} does not answer eth_chainId.`, cause })
  })

/**
 * Starts anvil and waits until it answers `eth_chainId` with the expected chain id. The node stops
 * when the scope closes.
 */
export const start = Effect.fn("Anvil.start")(function*(
  options: AnvilOptions = {}
): Effect.fn.Return<AnvilNode, AnvilError, Scope.Scope> {
  const binary = options.binary ?? (yield* Effect.fromResult(resolveAnvilBinary()).pipe(
    Effect.mapError((reason) => new AnvilError({ message: `Cannot find anvil: ${reason}.` }))
  ))
  const chainId = options.chainId ?? defaultChainId
  const args = ["--host", "127.0.0.1", "--port", String(options.port ?? 0), "--chain-id", String(chainId)]
  if (options.blockTimeSeconds !== undefined) args.push("--block-time", String(options.blockTimeSeconds))
  if (options.forkUrl !== undefined) args.push("--fork-url", options.forkUrl)
  if (options.forkBlockNumber !== undefined) args.push("--fork-block-number", String(options.forkBlockNumber))
  const pidFile = options.stateFile === undefined ? undefined : `${options.stateFile}.pid`
  if (options.stateFile !== undefined) {
    yield* stopLeftBehindAt(pidFile!, options.stateFile)
    args.push("--state", options.stateFile, "--state-interval", "1")
  }
  const { child, output, failure } = yield* spawnNode(binary, args, pidFile)
  const timeout = Duration.fromInputUnsafe(options.startTimeout ?? Duration.seconds(20))
  return yield* Effect.gen(function*() {
    const port = yield* listeningPort(child, output, failure, options.port ?? 0)
    const rpcUrl = `http://127.0.0.1:${port}`
    yield* answersChainId(rpcUrl, chainId).pipe(Effect.retry(Schedule.spaced(Duration.millis(50))))
    return { rpcUrl, chainId, port }
  }).pipe(
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.fail(new AnvilError({ message: `anvil did not start within ${Duration.format(timeout)}:\n${output.text}` }))
    })
  )
})

/** A layer that runs one anvil node for its lifetime. */
export const layer = (options: AnvilOptions = {}): Layer.Layer<Anvil, AnvilError> => Layer.effect(Anvil, start(options))

/** Whether the anvil binary can be found here (for skipping chain tests on unsupported machines). */
export const isAvailable = (): boolean => Result.isSuccess(resolveAnvilBinary())
