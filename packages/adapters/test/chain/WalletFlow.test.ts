/**
 * The wallet's side, end to end on anvil: the catalog lists the configured token, the option's
 * `walletRpc` action is executed verbatim by a wallet (anvil's own `eth_signTypedData_v4` and
 * `eth_sendTransaction` for its unlocked accounts), and the gateway accepts what comes back.
 */
import { AssetCatalog, ChainGateway, type OptionClaims, type PaymentProof, WalletActions, type Action } from "@paygate/domain"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Result } from "effect"
import { bytesToHex, type Hash, type Hex } from "viem"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ChainAssetCatalog from "../../src/chain/ChainAssetCatalog.ts"
import { ChainsConfig } from "../../src/chain/ChainConfig.ts"
import * as Eip155WalletActions from "../../src/chain/Eip155WalletActions.ts"
import { LocalChain } from "../../src/chain/LocalChain.ts"
import { chainTestLayer, localClient, randomNonce, settledOutcome } from "./support/ChainTest.ts"
import { decodeAction } from "../../../../test/support/WireShapes.ts"

const walletLayer = Layer.mergeAll(ChainAssetCatalog.layer, Eip155WalletActions.layer).pipe(
  Layer.provideMerge(chainTestLayer())
)

const claimsFor = (kind: "pull" | "push", nonce: string, value: bigint) =>
  Effect.map(LocalChain, (chain): OptionClaims => ({
    paymentId: "pay_test",
    account: `${chain.chainId}:${anvilAccount(3).address}`,
    asset: chain.usdcAssetId,
    value: value.toString(),
    expiresAt: null,
    kind,
    nonce,
    quotedAt: Math.floor(Date.now() / 1000)
  }))

/** A wallet carrying out a `walletRpc` action: anvil's own signer/sender for its default accounts. */
const runWalletRpc = (action: Action) =>
  Effect.gen(function*() {
    assert.strictEqual(action.type, "walletRpc")
    const decoded = decodeAction(JSON.parse(JSON.stringify(action)))
    if (decoded.type !== "walletRpc") throw new Error("not a walletRpc action")
    const client = yield* localClient
    const request = client.request as (args: { method: string; params: ReadonlyArray<unknown> }) => Promise<unknown>
    return (yield* Effect.promise(() => request({ method: decoded.data.method, params: decoded.data.params }))) as Hex
  })

layer(walletLayer, { excludeTestServices: true, timeout: "60 seconds" })("Wallet flow", (it) => {
  it.effect("the catalog lists the configured token as a pull asset", () =>
    Effect.gen(function*() {
      const catalog = yield* AssetCatalog
      const chain = yield* LocalChain
      const assets = catalog.assetsOn(chain.chainId)
      // TUSDC, and the euro test token the local chain takes beside it.
      assert.deepStrictEqual(assets.map((asset) => asset.symbol), ["TUSDC", "TEURC"])
      const tusdc = assets[0]
      assert.strictEqual(tusdc?.assetId, chain.usdcAssetId)
      assert.strictEqual(tusdc?.kind, "pull")
      assert.strictEqual(tusdc?.decimals, 6)
      assert.strictEqual(tusdc?.symbol, "TUSDC")
      assert.strictEqual(tusdc?.networkIconUrl, null)
      assert.strictEqual(tusdc?.etaSeconds, ChainAssetCatalog.defaultEtaSeconds)
      assert.deepStrictEqual(catalog.asset(chain.usdcAssetId.toLowerCase()), tusdc)
      assert.deepStrictEqual(catalog.assetsOn("eip155:1"), [])
      assert.isUndefined(catalog.asset("eip155:1/erc20:0x5FbDB2315678afecb367f032d93F642f64180aa3"))
    }))

  it.effect("pull: the wallet signs the typed data of the action as is, and the gateway verifies and collects it", () =>
    Effect.gen(function*() {
      const actions = yield* WalletActions
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const nonce = randomNonce()
      const claims = yield* claimsFor("pull", nonce, 4_200_000n)
      const validBefore = Math.floor(Date.now() / 1000) + 300
      const [action, ...rest] = yield* actions.actionsFor(claims, "opt_test", validBefore)
      assert.strictEqual(rest.length, 0)
      assert.isDefined(action)
      if (action?.type !== "walletRpc") return assert.fail("expected a walletRpc action")
      assert.strictEqual(action.data.chain_id, chain.chainId)
      assert.strictEqual(action.data.method, "eth_signTypedData_v4")
      assert.strictEqual(action.data.params[0], anvilAccount(3).address)
      const typedData = JSON.parse(String(action.data.params[1]))
      assert.deepStrictEqual(typedData.domain, {
        name: "Test USD Coin",
        version: "2",
        chainId: 31337,
        verifyingContract: chain.contracts.usdc
      })
      assert.deepStrictEqual(typedData.message, {
        from: anvilAccount(3).address,
        to: chain.collectionAddress,
        value: "4200000",
        validAfter: 0,
        validBefore,
        nonce
      })

      const signature = yield* runWalletRpc(action)
      const proof = {
        _tag: "Authorization",
        account: claims.account,
        asset: claims.asset,
        to: chain.collectionAddress,
        value: 4_200_000n,
        validBefore,
        nonce,
        signature
      } satisfies PaymentProof
      yield* gateway.verify(proof)
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, yield* gateway.submit(proof)), "succeeded")
    }))

  it.effect("push: a build action, resolved by /fetch into a transfer the wallet sends, verifies", () =>
    Effect.gen(function*() {
      const actions = yield* WalletActions
      const gateway = yield* ChainGateway
      const chain = yield* LocalChain
      const chains = yield* ChainsConfig
      const reference = bytesToHex(crypto.getRandomValues(new Uint8Array(16)))
      const claims = yield* claimsFor("push", reference, 990_000n)
      const built = yield* actions.actionsFor(claims, "opt_test", 0)
      assert.deepStrictEqual(built, [{ type: "build", data: { data: `erc20-transfer:${reference}` } }])

      const resolved = Eip155WalletActions.pushTransferActions(chains, claims)
      assert.isTrue(Result.isSuccess(resolved))
      const [send] = Result.getOrThrow(resolved)
      assert.isDefined(send)
      const txHash: Hash = yield* runWalletRpc(send!)
      yield* gateway.verify({
        _tag: "Transaction",
        account: claims.account,
        asset: claims.asset,
        to: chain.collectionAddress,
        value: 990_000n,
        reference,
        txHash
      })
      assert.strictEqual(yield* settledOutcome(chain.usdcAssetId, txHash), "succeeded")
      assert.isTrue(Result.isFailure(Eip155WalletActions.pushTransferActions(chains, { ...claims, nonce: "0x12" })))
    }))
})
