/**
 * A merchant backend's and a buyer wallet's view of a {@link PortalWorld} (the service as `npm start`
 * runs it, worker in process, on a fresh local chain), with a webhook receiver: calls to the partner,
 * merchant and gateway APIs as JSON, and the TUSDC balances of the chain.
 */
import { Chain, CredentialAdmin } from "@paygate/adapters"
import { Effect } from "effect"
import { createPublicClient, type Hex, http } from "viem"
import { type PortalWorld, startPortalWorld, type WorldOptions } from "../checkout/PortalWorld.ts"
import { type Receiver, startReceiver } from "./Receiver.ts"

/** A JSON answer: its status and body. */
export interface Answer {
  readonly status: number
  readonly body: any
}

/** The running world; see {@link startApiWorld}. */
export interface ApiWorld {
  readonly world: PortalWorld
  readonly hooks: Receiver
  /** The partner API with the world's partner key. */
  readonly partner: (method: string, path: string, body?: unknown) => Promise<Answer>
  /** The Merchant API for the world's merchant. */
  readonly merchant: (method: string, path: string, body?: unknown) => Promise<Answer>
  /** The gateway API as a wallet app (its own App-Id). */
  readonly wallet: (method: string, path: string, body?: unknown) => Promise<Answer>
  readonly usdc: string
  readonly caip10: (address: string) => string
  readonly balanceOf: (address: string) => Promise<bigint>
  readonly close: () => Promise<void>
}

/** Starts a world (webhooks to 127.0.0.1 allowed) and a receiver; `close` stops both. */
export const startApiWorld = async (options: WorldOptions = {}): Promise<ApiWorld> => {
  const hooks = await startReceiver()
  const world = await startPortalWorld({ allowPrivateWebhooks: true, ...options })
  const appId = (await world.admin(Effect.flatMap(CredentialAdmin, (admin) => admin.createApp({ name: "Test wallet", mode: "sandbox" })))).appId
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> => {
    const response = await fetch(`${world.baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? null : JSON.stringify(body)
    })
    return { status: response.status, body: await response.json() }
  }
  const client = createPublicClient({ transport: http(world.chain.node.rpcUrl) })
  return {
    world,
    hooks,
    partner: (method, path, body) => call(method, path, body, { "api-key": world.partnerKey }),
    merchant: (method, path, body) => call(method, path, body, { "api-key": world.partnerKey, "merchant-id": world.merchantId }),
    wallet: (method, path, body) => call(method, path, body, { "app-id": appId, "client-id": "buyer-1" }),
    usdc: world.chain.usdcAssetId,
    caip10: (address) => `${world.chain.chainId}:${address}`,
    balanceOf: (address) =>
      client.readContract({ address: world.chain.contracts.usdc, abi: Chain.Contracts.TestUsdc.abi, functionName: "balanceOf", args: [address as Hex] }),
    close: async () => {
      await world.close()
      await hooks.close()
    }
  }
}
