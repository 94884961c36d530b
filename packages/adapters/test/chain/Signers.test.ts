/**
 * Signers behind the payout, executor and sweep roles on a local anvil chain: a V3 keystore (the
 * Web3 Secret Storage test vectors, and a file with its passphrase in a file), a remote signer
 * over JSON-RPC (anvil's unlocked collection account), a remote signer that lies, and failing
 * signers whose errors and logs never carry the key, the passphrase or the signer's credentials.
 */
import { assert, layer } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Payouts, type PayoutTransfer, type SignedTransfer } from "@paygate/domain"
import { Duration, Effect, Layer, Logger, Option, Redacted, Schedule } from "effect"
import type { Address, Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainConfig from "../../src/chain/ChainConfig.ts"
import { signerFor } from "../../src/chain/ChainSigners.ts"
import { decrypt } from "../../src/chain/KeystoreV3.ts"
import * as LocalChain from "../../src/chain/LocalChain.ts"
import * as ViemPayouts from "../../src/chain/ViemPayouts.ts"
import { balanceOf } from "./support/ChainTest.ts"
import { encryptKeystore } from "./support/Keystore.ts"

const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address
const dir = mkdtempSync(join(tmpdir(), "paygate-signers-"))
const collectionKey = anvilAccount(9).privateKey

/** The local chain's configuration with the payout role signed by `payout` instead of the raw key. */
const withPayoutSigner = (chain: LocalChain.LocalChainInfo, payout: unknown) => {
  const base = LocalChain.settingsFor(chain, 1)
  return { ...base, chains: base.chains.map(({ collectionPrivateKey: _key, ...rest }) => ({ ...rest, signers: { payout } })) }
}

/** Payouts over `config`, its log lines kept in `logs`. */
const payoutsWith = (config: unknown, logs: Array<string> = []) =>
  ViemPayouts.make({ rpcTimeout: Duration.seconds(2) }).pipe(
    Effect.provide(Layer.orDie(ChainConfig.layer(config))),
    Effect.provide(Logger.layer([Logger.make((options) => logs.push(String(options.message)))]))
  )

/** Sends `value` TUSDC to a fresh account and waits for the chain's decision. */
const payOnce = (payouts: Payouts["Service"], value: bigint) =>
  Effect.gen(function*() {
    const chain = yield* LocalChain.LocalChain
    const to = fresh()
    const transfer: PayoutTransfer = { asset: chain.usdcAssetId, recipient: `${chain.chainId}:${to}`, value }
    const sent: SignedTransfer = Option.getOrThrow(yield* payouts.send(transfer, () => Effect.succeed(true)))
    const outcome = yield* payouts.observe(transfer, sent).pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (o) => o !== "pending" }),
      Effect.timeout(Duration.seconds(10))
    )
    return { outcome, received: yield* balanceOf(to) }
  })

/** A JSON-RPC endpoint answering every `eth_signTransaction` with `answer(params)`. */
const fakeSigner = (answer: (tx: Record<string, string>) => Promise<unknown>) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
      const server = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk) => (body += chunk))
        request.on("end", async () => {
          const call = JSON.parse(body)
          const result = await answer(call.params[0])
          response.setHeader("content-type", "application/json")
          response.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result }))
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address() as { port: number }
        resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}/`, close: () => server.close() }))
      })
    }),
    (server) => Effect.sync(server.close)
  )

const vector = (kdf: object, iv: string, ciphertext: string, mac: string) =>
  JSON.stringify({ version: 3, id: "3198bc9c-6672-5ab3-d995-4942343ae5b6", crypto: { cipher: "aes-128-ctr", cipherparams: { iv }, ciphertext, mac, ...kdf } })

layer(LocalChain.layer(), { excludeTestServices: true, timeout: "120 seconds" })("signers (anvil)", (it) => {
  it.effect("decrypts the Web3 Secret Storage test vectors (pbkdf2 and scrypt); a wrong passphrase is refused", () =>
    Effect.gen(function*() {
      const expected = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d"
      const pbkdf2 = vector(
        { kdf: "pbkdf2", kdfparams: { c: 262144, dklen: 32, prf: "hmac-sha256", salt: "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd" } },
        "6087dab2f9fdbbfaddc31a909735c1e6",
        "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
        "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"
      )
      const scrypt = vector(
        { kdf: "scrypt", kdfparams: { dklen: 32, n: 262144, r: 1, p: 8, salt: "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19" } },
        "83dbcc02d8ccb40e466191a123791e0e",
        "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
        "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097"
      )
      for (const file of [pbkdf2, scrypt]) {
        assert.strictEqual(Redacted.value(yield* decrypt(file, Redacted.make("testpassword"))), expected)
      }
      const wrong = yield* Effect.flip(decrypt(pbkdf2, Redacted.make("testpassword!")))
      assert.include(wrong.message, "wrong passphrase")
      assert.notInclude(wrong.message, expected.slice(2))
    }))

  it.effect("pays out with the collection key from a keystore whose passphrase is in a file", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const path = join(dir, "collection.json")
      writeFileSync(path, encryptKeystore(collectionKey, "correct horse", chain.collectionAddress))
      writeFileSync(join(dir, "passphrase"), "correct horse\n")
      const config = withPayoutSigner(chain, { kind: "keystore", path, address: chain.collectionAddress, passphraseFile: join(dir, "passphrase") })
      const paid = yield* payOnce(yield* payoutsWith(config), 321n)
      assert.deepStrictEqual(paid, { outcome: "succeeded", received: 321n })
    }))

  it.effect("pays out through a remote signer (anvil's unlocked collection account, eth_signTransaction)", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const config = withPayoutSigner(chain, { kind: "remote", url: chain.node.rpcUrl, address: chain.collectionAddress })
      const paid = yield* payOnce(yield* payoutsWith(config), 654n)
      assert.deepStrictEqual(paid, { outcome: "succeeded", received: 654n })
    }))

  it.effect("a remote signer answering a transaction of another account, or another transaction, is refused: nothing is sent", () =>
    Effect.scoped(Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const impostor = privateKeyToAccount(anvilAccount(8).privateKey)
      const sign = (tx: Record<string, string>, to: Address) =>
        impostor.signTransaction({
          type: "eip1559",
          chainId: Number(tx.chainId),
          nonce: Number(tx.nonce),
          to,
          data: tx.data as Hex,
          gas: BigInt(tx.gas!),
          value: BigInt(tx.value!),
          maxFeePerGas: BigInt(tx.maxFeePerGas!),
          maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas!)
        })
      const otherAccount = yield* fakeSigner((tx) => sign(tx, tx.to as Address))
      const otherTarget = yield* fakeSigner((tx) => sign(tx, fresh()))
      for (const signer of [otherAccount, otherTarget]) {
        const payouts = yield* payoutsWith(withPayoutSigner(chain, { kind: "remote", url: signer.url, address: chain.collectionAddress }))
        const recorded: Array<SignedTransfer> = []
        const transfer: PayoutTransfer = { asset: chain.usdcAssetId, recipient: `${chain.chainId}:${fresh()}`, value: 1n }
        const error = yield* Effect.flip(payouts.send(transfer, (signed) => Effect.sync(() => (recorded.push(signed), true))))
        assert.strictEqual(error._tag, "ChainUnavailable")
        assert.include(error.message, "refused")
        assert.deepStrictEqual(recorded, [], "nothing recorded, nothing sent")
      }
    })))

  it.effect("a failing signer's errors and logs never carry the key, the passphrase or the signer's credentials", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const path = join(dir, "locked.json")
      writeFileSync(path, encryptKeystore(collectionKey, "the right one", chain.collectionAddress))
      process.env.PAYGATE_TEST_WRONG_PASSPHRASE = "a wrong one"
      const secrets = [collectionKey.slice(2), "the right one", "a wrong one", "s3cretTok"]
      const cases = [
        { kind: "keystore", path, address: chain.collectionAddress, passphraseEnv: "PAYGATE_TEST_WRONG_PASSPHRASE" },
        { kind: "keystore", path, address: chain.collectionAddress, passphraseEnv: "PAYGATE_TEST_UNSET_PASSPHRASE" },
        { kind: "remote", url: "http://operator:s3cretTok@127.0.0.1:9/", address: chain.collectionAddress }
      ]
      for (const payout of cases) {
        const logs: Array<string> = []
        const payouts = yield* payoutsWith(withPayoutSigner(chain, payout), logs)
        const transfer: PayoutTransfer = { asset: chain.usdcAssetId, recipient: `${chain.chainId}:${fresh()}`, value: 1n }
        const error = yield* Effect.flip(payouts.send(transfer, () => Effect.succeed(true)))
        assert.strictEqual(error._tag, "ChainUnavailable")
        const said = [...logs, error.message, JSON.stringify(error)].join("\n")
        assert.isNotEmpty(logs.concat(error.message))
        for (const secret of secrets) assert.notInclude(said.toLowerCase(), secret.toLowerCase())
      }
    }))

  it.effect("a chain's roles: the executor from signers.executor, sweeps by default as the executor; one source per role", () =>
    Effect.gen(function*() {
      const chain = yield* LocalChain.LocalChain
      const base = LocalChain.settingsFor(chain, 1)
      const remote = { kind: "remote", url: chain.node.rpcUrl, address: chain.executorAddress }
      const { executorPrivateKey: _key, ...keyless } = base.chains[0]!
      const decoded = yield* ChainConfig.decode({ ...base, chains: [{ ...keyless, signers: { executor: remote } }] })
      const settings = decoded.settings.chains[0]!
      assert.strictEqual(ChainConfig.executorAddress(settings), chain.executorAddress)
      assert.strictEqual((yield* signerFor(settings, "sweep"))?.address, chain.executorAddress)
      const both = yield* Effect.flip(ChainConfig.decode({ ...base, chains: [{ ...base.chains[0]!, signers: { executor: remote } }] }))
      assert.include(both.message, "set exactly one of executorPrivateKey and signers.executor")
      const neither = yield* Effect.flip(ChainConfig.decode({ ...base, chains: [keyless] }))
      assert.include(neither.message, "set exactly one of executorPrivateKey and signers.executor")
      const wrongHolder = { kind: "remote", url: chain.node.rpcUrl, address: chain.executorAddress }
      const payoutElsewhere = yield* Effect.flip(ChainConfig.decode(withPayoutSigner(chain, wrongHolder)))
      assert.include(payoutElsewhere.message, "not of collectionAddress")
    }))
})
