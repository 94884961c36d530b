/**
 * Permit2 on a development chain: `TestPermit2` (see `packages/adapters/contracts/TestPermit2.sol`)
 * placed at Permit2's canonical address with `anvil_setCode` (it keeps no constructor state, so its
 * runtime code alone is the contract), and `TestUsdt`, a USDT-style token without EIP-3009, minted
 * to the default anvil accounts like TUSDC.
 *
 * @module
 */
import { Effect } from "effect"
import type { Address } from "viem"
import { TestPermit2, TestUsdt } from "./contracts.generated.ts"
import { DeployError, type DeployOptions, deployerOn, mintEach } from "./Deploy.ts"
import { permit2Address } from "./Permit2.ts"
import { rpc } from "./RpcCall.ts"

/** Places Permit2 at its canonical address (unless it has code there) and deploys and mints TestUsdt; answers TestUsdt's address. */
export const deployPermit2Token = Effect.fn("Deploy.deployPermit2Token")(function*(
  options: Pick<DeployOptions, "rpcUrl" | "chainId" | "deployerPrivateKey" | "mintTo" | "mintAmount">
): Effect.fn.Return<Address, DeployError> {
  const deployer = yield* deployerOn(options)
  const { chainId, client, deploy } = deployer
  const failed = (what: string) => (error: { readonly message: string }) => new DeployError({ message: `${what}: ${error.message}` })
  const placed = yield* rpc(chainId, "eth_getCode", () => client.getCode({ address: permit2Address })).pipe(
    Effect.mapError(failed("read Permit2's code"))
  )
  if (placed === undefined || placed === "0x") {
    const template = yield* deploy(TestPermit2.bytecode, "deploy TestPermit2")
    const code = yield* rpc(chainId, "eth_getCode", () => client.getCode({ address: template })).pipe(Effect.mapError(failed("read TestPermit2's code")))
    yield* rpc(chainId, "anvil_setCode", () => client.request({ method: "anvil_setCode" as never, params: [permit2Address, code] as never })).pipe(
      Effect.mapError(failed("place Permit2"))
    )
  }
  const usdt = yield* deploy(TestUsdt.bytecode, "deploy TestUsdt")
  yield* mintEach(deployer, usdt, "TUSDT", options)
  return usdt
})
