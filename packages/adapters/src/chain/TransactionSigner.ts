/**
 * Who signs a role's transactions (the executor's, the payouts', the deposit sweeps'): a raw key
 * from configuration (local chains and tests), an encrypted V3 keystore file whose passphrase comes
 * from a file or an environment variable, or a remote signer over JSON-RPC (`eth_signTransaction`,
 * as Clef-style signers and nodes with unlocked accounts expose it).
 *
 * Every signer answers for one configured `address`: a keystore holding another key fails when the
 * signer is made, and a remote signer's transaction must recover to that address and carry what was
 * asked (nonce, recipient, value, data, gas, fees, chain) or it is refused. Failures name the role
 * and what went wrong, never a key, a passphrase or a signer URL (which may embed credentials).
 *
 * @module
 */
import { readFile } from "node:fs/promises"
import { Effect, Option, Redacted, Schema } from "effect"
import {
  type Address,
  createClient,
  type Hex,
  hexToBytes,
  http,
  keccak256,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import * as Configuration from "../Configuration.ts"
import { EvmAddress, sameAddress } from "./EvmAddress.ts"
import { decrypt } from "./KeystoreV3.ts"
import { secp256k1 } from "./Secp256k1Loader.ts"
import { describeError } from "./RpcCall.ts"

/** The roles that send transactions. */
export type SignerRole = "executor" | "payout" | "sweep"

/** A signer cannot be made or refused to sign; the message holds no secret. */
export class SignerError extends Schema.TaggedError<SignerError>()("SignerError", {
  role: Schema.String,
  message: Schema.String
}) {}

/** A transaction to sign: EIP-1559 with every field set. */
export interface UnsignedTransaction {
  readonly chainId: number
  readonly nonce: number
  readonly to?: Address | undefined
  readonly data: Hex
  readonly value: bigint
  readonly gas: bigint
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

/** Signs one account's transactions. */
export interface TransactionSigner {
  readonly address: Address
  /** The signed, serialized transaction. */
  readonly sign: (transaction: UnsignedTransaction) => Effect.Effect<Hex, SignerError>
}

const HttpUrl = Schema.String.pipe(
  Schema.check(Schema.makeFilter((text: string) => {
    const url = URL.parse(text)
    return url !== null && (url.protocol === "http:" || url.protocol === "https:")
  }, { expected: "an http(s) URL" }))
)

const NonEmpty = Schema.String.pipe(Schema.check(Schema.isNonEmpty()))

/** How a role's signer is configured (the `signers` of a chain in `PAYGATE_CHAINS`). */
export const SignerSettings = Schema.Union([
  Schema.Struct({
    kind: Schema.Literal("keystore"),
    /** The V3 keystore file's path. */
    path: NonEmpty,
    /** The account the keystore holds (checked when decrypted). */
    address: EvmAddress,
    /** A file holding the passphrase (one trailing newline ignored)… */
    passphraseFile: Schema.optionalKey(NonEmpty),
    /** …or the name of an environment variable holding it. */
    passphraseEnv: Schema.optionalKey(NonEmpty)
  }),
  Schema.Struct({
    kind: Schema.Literal("remote"),
    /** The signer's JSON-RPC endpoint. */
    url: Schema.RedactedFromValue(HttpUrl),
    /** The account it signs for. */
    address: EvmAddress
  })
]).pipe(
  Schema.check(Schema.makeFilter((settings) =>
    settings.kind !== "keystore" || (settings.passphraseFile === undefined) !== (settings.passphraseEnv === undefined) ||
    "a keystore signer needs exactly one of passphraseFile and passphraseEnv"
  ))
)

/** A configured signer. */
export type SignerSettings = typeof SignerSettings.Type

/**
 * What viem's `account.signTransaction` does, with the signature made in WebAssembly
 * (`Secp256k1.ts`, loaded at the first transaction): the same bytes, in a fraction of the CPU the
 * event loop would spend on each transaction sent.
 */
const fromKey = (privateKey: Redacted.Redacted<Hex>, role: SignerRole): TransactionSigner => {
  const address = privateKeyToAccount(Redacted.value(privateKey)).address
  return {
    address,
    sign: (transaction) =>
      Effect.tryPromise({
        try: async () => {
          const { signHash } = await secp256k1()
          const unsigned = { type: "eip1559", ...transaction } as const
          const signature = signHash(hexToBytes(keccak256(serializeTransaction(unsigned))), hexToBytes(Redacted.value(privateKey)))
          return serializeTransaction(unsigned, signature)
        },
        catch: () => new SignerError({ role, message: "the local key could not sign the transaction" })
      })
  }
}

/** A signer of a raw private key. */
export const fromPrivateKey = (privateKey: Redacted.Redacted<Hex>, role: SignerRole = "executor"): TransactionSigner =>
  fromKey(privateKey, role)

const passphraseOf = (settings: SignerSettings & { readonly kind: "keystore" }, role: SignerRole) => {
  const fail = (message: string) => Effect.fail(new SignerError({ role, message }))
  const variable = settings.passphraseEnv
  if (variable !== undefined) {
    return Effect.gen(function*() {
      const value = yield* Configuration.signerPassphrase(variable).pipe(
        Effect.mapError(() => new SignerError({ role, message: `the passphrase variable ${variable} cannot be read` }))
      )
      return Option.isSome(value) ? value.value : yield* fail(`the passphrase variable ${variable} is not set`)
    })
  }
  const file = settings.passphraseFile!
  return Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: () => new SignerError({ role, message: `the passphrase file ${file} cannot be read` })
  }).pipe(Effect.map((text) => Redacted.make(text.replace(/\r?\n$/, ""))))
}

const fromKeystore = (settings: SignerSettings & { readonly kind: "keystore" }, role: SignerRole) =>
  Effect.gen(function*() {
    const json = yield* Effect.tryPromise({
      try: () => readFile(settings.path, "utf8"),
      catch: () => new SignerError({ role, message: `the keystore ${settings.path} cannot be read` })
    })
    const passphrase = yield* passphraseOf(settings, role)
    const key = yield* decrypt(json, passphrase).pipe(
      Effect.mapError((error) => new SignerError({ role, message: `keystore ${settings.path}: ${error.message}` }))
    )
    const signer = fromKey(key, role)
    if (!sameAddress(signer.address, settings.address)) {
      return yield* new SignerError({ role, message: `keystore ${settings.path} holds the key of ${signer.address}, not of ${settings.address}` })
    }
    return signer
  })

const quantity = (value: bigint | number) => numberToHex(value)

/** The signed transaction carries exactly what was asked, from the configured account. */
const checked = (role: SignerRole, address: Address, asked: UnsignedTransaction, raw: Hex) =>
  Effect.gen(function*() {
    const refuse = (what: string) => Effect.fail(new SignerError({ role, message: `the remote signer's transaction ${what}: refused` }))
    const parsed = yield* Effect.try({ try: () => parseTransaction(raw), catch: () => new SignerError({ role, message: "the remote signer answered no signed transaction" }) })
    const same = parsed.type === "eip1559" && parsed.chainId === asked.chainId && parsed.nonce === asked.nonce &&
      parsed.gas === asked.gas && parsed.maxFeePerGas === asked.maxFeePerGas &&
      parsed.maxPriorityFeePerGas === asked.maxPriorityFeePerGas && (parsed.value ?? 0n) === asked.value &&
      (parsed.data ?? "0x").toLowerCase() === asked.data.toLowerCase() &&
      (asked.to === undefined ? parsed.to == null : parsed.to != null && sameAddress(parsed.to, asked.to))
    if (!same) return yield* refuse("differs from the one asked")
    const from = yield* Effect.tryPromise({
      try: () => recoverTransactionAddress({ serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]["serializedTransaction"] }),
      catch: () => new SignerError({ role, message: "the remote signer's transaction has no valid signature" })
    })
    if (!sameAddress(from, address)) return yield* refuse(`is signed by ${from}, not ${address}`)
    return raw
  })

const fromRemote = (settings: SignerSettings & { readonly kind: "remote" }, role: SignerRole): TransactionSigner => {
  const client = createClient({ transport: http(Redacted.value(settings.url), { retryCount: 0, timeout: 10_000 }) })
  const address = settings.address as Address
  return {
    address,
    sign: (transaction) =>
      Effect.tryPromise({
        try: () =>
          client.request({
            method: "eth_signTransaction" as never,
            params: [{
              from: address,
              ...(transaction.to === undefined ? {} : { to: transaction.to }),
              type: "0x2",
              chainId: quantity(transaction.chainId),
              nonce: quantity(transaction.nonce),
              gas: quantity(transaction.gas),
              maxFeePerGas: quantity(transaction.maxFeePerGas),
              maxPriorityFeePerGas: quantity(transaction.maxPriorityFeePerGas),
              value: quantity(transaction.value),
              data: transaction.data,
              input: transaction.data
            }] as never
          }) as Promise<unknown>,
        catch: (cause) => new SignerError({ role, message: `the remote signer refused or did not answer: ${describeError(cause)}` })
      }).pipe(
        // Nodes answer the raw transaction; Clef and geth answer `{ raw, tx }`.
        Effect.map((answer) => typeof answer === "object" && answer !== null && "raw" in answer ? (answer as { raw: unknown }).raw : answer),
        Effect.flatMap((raw) =>
          typeof raw === "string" && raw.startsWith("0x")
            ? checked(role, address, transaction, raw as Hex)
            : Effect.fail(new SignerError({ role, message: "the remote signer answered no signed transaction" }))
        )
      )
  }
}

/** The signer `settings` describe, for `role`; a keystore is read and decrypted now. */
export const make = (settings: SignerSettings, role: SignerRole): Effect.Effect<TransactionSigner, SignerError> =>
  settings.kind === "keystore" ? fromKeystore(settings, role) : Effect.succeed(fromRemote(settings, role))
