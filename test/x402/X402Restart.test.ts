/**
 * A settle retried after the service was killed mid-settlement (`kill -9` of the API process, its
 * executor in process, while the transfer waits on chain unmined): the retry, on the restarted
 * service, answers the same transaction, and there is one transfer on chain.
 */
import { Chain } from "@paygate/adapters"
import { HTTPFacilitatorClient } from "@x402/core/server"
import type { PaymentRequirements } from "@x402/core/types"
import { randomBytes } from "node:crypto"
import { type Address, createPublicClient, createTestClient, type Hex, http, parseAbi, parseAbiItem } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { afterAll, describe, expect, it } from "vitest"
import { send } from "../support/Http.ts"
import { localChainForFile } from "../support/LocalChainWorld.ts"
import { makePostgresWorld, type PostgresWorld } from "../support/PostgresWorld.ts"
import { admin, freePort, type Managed, managedApi, sleep } from "../support/ServiceProcess.ts"
import { sendTokenTransfer } from "../support/TokenTransfer.ts"
import { signedPayload } from "./X402Payloads.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)")
const domainAbi = parseAbi(["function name() view returns (string)", "function version() view returns (string)"])

describe.runIf(serverUrl !== undefined && serverUrl !== "")("x402: a settle retried after a kill -9 mid-settlement (PostgreSQL, anvil)", () => {
  const chainWorld = localChainForFile()
  let world: PostgresWorld | undefined
  let api: (Managed & { readonly url: string }) | undefined

  afterAll(async () => {
    await api?.stop(2_000)
    await world?.close()
  })

  it("answers the same transaction after the restart: one transfer on chain", async () => {
    const { chain } = chainWorld()
    const rpc = http(chain.node.rpcUrl)
    const anvil = createTestClient({ mode: "anvil", transport: rpc })
    const client = createPublicClient({ transport: rpc })
    world = await makePostgresWorld(serverUrl!)
    api = managedApi("api", await freePort(), {
      DATABASE_URL: world.url,
      WEBHOOK_SECRET_KEY: world.keyText,
      OPTION_ID_SECRET: randomBytes(32).toString("base64"),
      PAYGATE_CHAINS: JSON.stringify(Chain.LocalChain.settingsFor(chain, 1)),
      EXECUTOR_POLL_MS: "100",
      // The killed process's lease on the payment ends soon, so the restarted executor takes it over.
      EXECUTOR_LEASE_MS: "2000",
      EXECUTOR_PENDING_RECHECK_MS: "200",
      EXECUTOR_UNKNOWN_RECHECK_MS: "500"
    })
    const service = api
    await service.start()
    const outputs = () => service.outputs()

    const partner = await admin(world.url, "partner", "create", "--name", "x402 partner", "--sandbox")
    const created = await send(service.url, "POST", "/v1/merchants", {
      headers: { "api-key": partner.apiKey, "idempotency-key": "m-x402" },
      body: { merchantName: "Weather desk" }
    })
    expect(created.status, created.text).toBe(201)
    const headers = { "Api-Key": partner.apiKey as string, "Merchant-Id": created.body.merchantId as string }
    const facilitator = new HTTPFacilitatorClient({
      url: `${service.url}/x402`,
      createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers })
    })
    const token = chain.contracts.usdc
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: chain.chainId as `${string}:${string}`,
      asset: token,
      amount: "10000",
      payTo: chain.collectionAddress,
      maxTimeoutSeconds: 300,
      extra: {
        name: await client.readContract({ address: token, abi: domainAbi, functionName: "name" }),
        version: await client.readContract({ address: token, abi: domainAbi, functionName: "version" })
      }
    }
    const buyer = privateKeyToAccount(generatePrivateKey())
    await sendTokenTransfer({ rpcUrl: chain.node.rpcUrl, privateKey: Chain.anvilAccount(8).privateKey as Hex, token, to: buyer.address, value: 1_000_000n })
    const payload = await signedPayload(buyer, { requirements, chainId: Number(chain.chainId.split(":")[1]) })
    const transfers = () =>
      client.getLogs({ address: token, event: transferEvent, args: { from: buyer.address as Address }, fromBlock: 0n, toBlock: "latest" })

    // The transfer is sent but not mined: the settle waits for it when the service is killed.
    await anvil.setAutomine(false)
    try {
      const executor = chain.executorAddress as Address
      const sentBefore = await client.getTransactionCount({ address: executor, blockTag: "pending" })
      const first = facilitator.settle(payload, requirements).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error })
      )
      const deadline = Date.now() + 30_000
      while ((await client.getTransactionCount({ address: executor, blockTag: "pending" })) === sentBefore) {
        if (Date.now() > deadline) throw new Error(`the settle sent nothing:\n${outputs()}`)
        await sleep(50)
      }
      await service.kill9()
      const lost = await first
      expect("error" in lost, JSON.stringify(lost)).toBe(true)
      await anvil.mine({ blocks: 1 })
    } finally {
      await anvil.setAutomine(true)
    }

    await service.start()
    const retried = await facilitator.settle(payload, requirements)
    expect(retried.success, `${retried.errorReason} ${retried.errorMessage}\n${outputs()}`).toBe(true)
    const logs = await transfers()
    expect(logs).toHaveLength(1)
    expect(logs[0]!.transactionHash).toBe(retried.transaction)
    // Settled again later: the same response, still one transfer.
    await sleep(1_000)
    expect(await facilitator.settle(payload, requirements)).toEqual(retried)
    expect(await transfers()).toHaveLength(1)
  }, 240_000)
})
