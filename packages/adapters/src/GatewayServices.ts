/**
 * What the gateway's operations (API rules §10) run on beyond the database: the three settings a host
 * chooses ({@link GatewaySettings}: the chains (`ChainsConfig`), the option id secret ({@link OptionIdSecret})
 * and the sanctions list) and the process's chain gateway ({@link chainGateway}). The composition
 * root puts the gateway's use cases together over them.
 *
 * From configuration ({@link settingsFromConfig}):
 *
 * - `PAYGATE_NETWORKS` (named networks, see `NetworkPresets`) or `PAYGATE_CHAINS` (JSON, see `ChainConfig`); unset = no chain, every
 *   options request answers `options: []`.
 * - `OPTION_ID_SECRET`: base64 of at least 32 bytes, the HMAC key of option ids. Unset: on the
 *   embedded database (no `DATABASE_URL`) a secret is generated once and kept beside the data
 *   directory (`<PAYGATE_DATA_DIR>.option-id-secret`, mode 0600); on PostgreSQL a secret is
 *   generated at each start, with a warning: option ids then do not survive a restart, and several
 *   instances would not accept each other's ids.
 * - `SANCTIONS_FILE`: see `SanctionsList`.
 *
 * @module
 */
import type { ChainGateway, SanctionsScreening } from "@paygate/domain"
import { type Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { readFile, writeFile } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import * as Chain from "./chain/index.ts"
import * as PrivateFiles from "./PrivateFiles.ts"
import * as SanctionsList from "./SanctionsList.ts"
import * as Configuration from "./Configuration.ts"

const { ChainConfig, SignatureRecovery, ViemChainGateway } = Chain

/**
 * The HMAC key option ids are signed with (at least {@link minSecretBytes} bytes): the composition
 * root builds the domain's `OptionIds` over it.
 */
export class OptionIdSecret extends Context.Service<OptionIdSecret, { readonly key: Uint8Array }>()("@paygate/adapters/OptionIdSecret") {}

/** What a host chooses for the gateway: chains, option id secret, sanctions list. */
export type GatewaySettings = Chain.ChainConfig.ChainsConfig | OptionIdSecret | SanctionsScreening

/** The option id secret is malformed or its file cannot be used. */
export class OptionIdSecretError extends Schema.TaggedError<OptionIdSecretError>()("OptionIdSecretError", {
  message: Schema.String
}) {}

/** Why {@link settingsFromConfig} cannot start. */
export type GatewayConfigError =
  | Chain.ChainConfig.ChainConfigError
  | Config.ConfigError
  | SanctionsList.SanctionsListError
  | OptionIdSecretError

/** Minimum length of the option id secret, in bytes. */
export const minSecretBytes = 32

/** Settings from parts: option ids signed with `secret` (≥ 32 bytes); by default no sanctions list. */
export const settings = <E1 = never, R1 = never, E2 = never, R2 = never>(options: {
  readonly chains: Layer.Layer<Chain.ChainConfig.ChainsConfig, E1, R1>
  readonly secret: Uint8Array
  readonly sanctions?: Layer.Layer<SanctionsScreening, E2, R2>
}): Layer.Layer<GatewaySettings, E1 | E2, R1 | R2> =>
  Layer.mergeAll(
    options.chains,
    Layer.succeed(OptionIdSecret, OptionIdSecret.of({ key: options.secret })),
    options.sanctions ?? SanctionsList.layerEmpty
  )

const base64 = /^[A-Za-z0-9+/]+={0,2}$/

/** Decodes a base64 secret of at least {@link minSecretBytes} bytes; `what` names it in messages. */
export const decodeSecret = (text: string, what: string): Effect.Effect<Uint8Array, OptionIdSecretError> => {
  const trimmed = text.trim()
  const bytes = base64.test(trimmed) && trimmed.length % 4 === 0 ? new Uint8Array(Buffer.from(trimmed, "base64")) : undefined
  if (bytes === undefined || bytes.length < minSecretBytes) {
    return Effect.fail(new OptionIdSecretError({ message: `${what} must be base64 of at least ${minSecretBytes} bytes.` }))
  }
  return Effect.succeed(bytes)
}

// The secret kept beside the embedded database: read it, or create it once.
const persistedSecret = (file: string) =>
  Effect.gen(function*() {
    const existing = yield* Effect.tryPromise({
      // An existing file is made owner-only again (copied or restored with a wider mode).
      try: () => readFile(file, "utf8").then(async (text) => (await PrivateFiles.restrictFile(file), text)),
      catch: (error) => error
    }).pipe(
      Effect.map(Option.some),
      Effect.catch((error) =>
        (error as { readonly code?: unknown }).code === "ENOENT"
          ? Effect.succeed(Option.none<string>())
          : Effect.fail(new OptionIdSecretError({ message: `Cannot read the option id secret ${file}: ${String(error)}` }))
      )
    )
    if (Option.isSome(existing)) return yield* decodeSecret(existing.value, `The option id secret in ${file}`)
    const secret = new Uint8Array(randomBytes(minSecretBytes))
    yield* Effect.tryPromise({
      try: async () => {
        await PrivateFiles.makePrivateDirectory(dirname(file))
        // `wx`: never overwrite a secret another process wrote meanwhile.
        await writeFile(file, `${Buffer.from(secret).toString("base64")}\n`, { mode: PrivateFiles.fileMode, flag: "wx" })
      },
      catch: (error) => new OptionIdSecretError({ message: `Cannot write the option id secret ${file}: ${String(error)}` })
    })
    yield* Effect.logInfo(`Option ids: generated a secret and stored it in ${file}.`)
    return secret
  })

/** The option id secret from configuration (see the module comment). */
export const secretFromConfig: Effect.Effect<Uint8Array, OptionIdSecretError | Config.ConfigError> = Effect.gen(function*() {
  const configured = yield* Configuration.optionIdSecret
  if (Option.isSome(configured)) return yield* decodeSecret(Redacted.value(configured.value), "OPTION_ID_SECRET")
  if (Option.isNone(yield* Configuration.databaseUrl)) {
    const dataDir = yield* Configuration.dataDir
    return yield* persistedSecret(`${resolve(dataDir)}.option-id-secret`)
  }
  yield* Effect.logWarning(
    "OPTION_ID_SECRET is not set: generated one for this process; option ids will not survive a restart " +
      "and other instances will not accept them. Set OPTION_ID_SECRET (base64, at least 32 bytes)."
  )
  return new Uint8Array(randomBytes(minSecretBytes))
})

/**
 * The settings from configuration but the chains, which `chains` provides (e.g. a local anvil
 * chain: `LocalChain.layer()`).
 */
export const settingsFromConfigWith = <E, R>(
  chains: Layer.Layer<Chain.ChainConfig.ChainsConfig, E, R>
): Layer.Layer<GatewaySettings, E | Exclude<GatewayConfigError, Chain.ChainConfig.ChainConfigError>, R> =>
  Layer.unwrap(
    Effect.map(secretFromConfig, (secret) => settings({ chains, secret, sanctions: SanctionsList.layerFromConfig }))
  )

/** The settings from configuration (see the module comment). */
export const settingsFromConfig: Layer.Layer<GatewaySettings, GatewayConfigError> = settingsFromConfigWith(Chain.ChainSource.layerOrEmpty)

// Signature recovery on worker threads (off the event loop under load); none to start without chains.
const signatureRecovery = Layer.unwrap(
  Effect.map(ChainConfig.ChainsConfig, (chains) =>
    chains.chains.size === 0 ? SignatureRecovery.layerInline : SignatureRecovery.layerWorkers())
)

/**
 * The chain gateway over the configured chains: one per process, shared by confirm (verify) and the
 * in-process worker's executor (submit, observe), so each executor account has one nonce sequence.
 * Its signature recovery is exposed too, for the other signature checks (subscription permits).
 */
export const chainGateway: Layer.Layer<
  ChainGateway | Chain.SignatureRecovery.SignatureRecovery,
  Chain.ChainConfig.ChainConfigError,
  Chain.ChainConfig.ChainsConfig
> = ViemChainGateway.layer.pipe(Layer.provideMerge(signatureRecovery))
