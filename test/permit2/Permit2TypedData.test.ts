/**
 * The Permit2 typed data the service asks wallets to sign hashes exactly as Uniswap's published
 * `@uniswap/permit2-sdk` hashes it, so the same code works against the real Permit2; and the JSON
 * sent to wallets is the same typed data.
 */
import type { SignatureTransfer as SdkSignatureTransfer } from "@uniswap/permit2-sdk"
import fc from "fast-check"
import { fileURLToPath } from "node:url"
import { getAddress, hashTypedData, type Hex } from "viem"
import { describe, expect, it } from "vitest"
import { Chain } from "@paygate/adapters"

// The package's index also loads its allowance providers, which need `tslib` (not installed here):
// the signature-transfer module alone is what this test compares with.
const sdkModule = fileURLToPath(new URL("../../node_modules/@uniswap/permit2-sdk/dist/esm/src/signatureTransfer.js", import.meta.url))
const { SignatureTransfer } = (await import(sdkModule)) as { readonly SignatureTransfer: typeof SdkSignatureTransfer }

const { permit2Address, permitTransferFromJson, permitTransferFromTypedData } = Chain.Permit2

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString("hex")}`))
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })

const sdkHash = (chainId: number, permit: { token: string; amount: bigint; spender: string; nonce: bigint; deadline: bigint }) =>
  SignatureTransfer.hash(
    {
      permitted: { token: permit.token, amount: permit.amount.toString() },
      spender: permit.spender,
      nonce: permit.nonce.toString(),
      deadline: permit.deadline.toString()
    },
    permit2Address,
    chainId
  )

describe("Permit2 PermitTransferFrom typed data", () => {
  it("hashes as @uniswap/permit2-sdk does (USDT on Ethereum, a fixed example)", () => {
    const permit = {
      token: getAddress("0xdac17f958d2ee523a2206206994597c13d831ec7"),
      amount: 10_500_000n,
      spender: getAddress("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"),
      nonce: BigInt("0x9c1d5a0e0f2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5"),
      deadline: 1_790_000_000n
    }
    expect(hashTypedData(permitTransferFromTypedData(1, permit))).toBe(sdkHash(1, permit))
  })

  it("hashes as @uniswap/permit2-sdk does for any token, amount, spender, nonce, deadline and chain", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), address, uint256, address, uint256, uint256, (chainId, token, amount, spender, nonce, deadline) => {
        const permit = { token, amount, spender, nonce, deadline }
        expect(hashTypedData(permitTransferFromTypedData(chainId, permit))).toBe(sdkHash(chainId, permit))
      }),
      { numRuns: 200 }
    )
  })

  it("the eth_signTypedData_v4 JSON is the same typed data (a wallet that signs it signs the hash above)", () => {
    const permit = { token: getAddress("0xc2132d05d31c914a87c6611c10748aeb04b58e8f"), amount: 1n, spender: permit2Address, nonce: 2n ** 255n + 7n, deadline: 2n ** 48n }
    const json = JSON.parse(permitTransferFromJson(137, permit))
    const { EIP712Domain, ...types } = json.types
    expect(EIP712Domain).toEqual([
      { name: "name", type: "string" },
      { name: "chainId", type: "uint256" },
      { name: "verifyingContract", type: "address" }
    ])
    expect(json.domain).toEqual({ name: "Permit2", chainId: 137, verifyingContract: "0x000000000022D473030F116dDEE9F6B43aC78BA3" })
    const hash = hashTypedData({ domain: json.domain, types, primaryType: json.primaryType, message: json.message })
    expect(hash).toBe(sdkHash(137, permit) as Hex)
  })
})
