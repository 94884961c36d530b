/**
 * x402 payloads signed by hand (viem), for tests that need one payload settled several times, or
 * one that is wrong in exactly one way.
 */
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types"
import { randomBytes } from "node:crypto"
import type { Address, Hex, LocalAccount } from "viem"
import { Chain } from "@paygate/adapters"

export interface PayloadOptions {
  readonly requirements: PaymentRequirements
  readonly chainId: number
  /** Overrides of the signed authorization. */
  readonly value?: bigint
  readonly to?: Address
  readonly validAfter?: bigint
  readonly validBefore?: bigint
  readonly nonce?: Hex
  /** Signs with this account instead (a signature that is not the payer's). */
  readonly signer?: LocalAccount
}

/** A payload paying `requirements` from `payer`, as `@x402/evm`'s client builds it. */
export const signedPayload = async (payer: LocalAccount, options: PayloadOptions): Promise<PaymentPayload> => {
  const { requirements } = options
  const authorization = {
    from: payer.address,
    to: options.to ?? (requirements.payTo as Address),
    value: options.value ?? BigInt(requirements.amount),
    validAfter: options.validAfter ?? 0n,
    validBefore: options.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 300),
    nonce: options.nonce ?? (`0x${randomBytes(32).toString("hex")}` as Hex)
  }
  const signature = await (options.signer ?? payer).signTypedData({
    domain: {
      name: requirements.extra.name as string,
      version: requirements.extra.version as string,
      chainId: options.chainId,
      verifyingContract: requirements.asset as Address
    },
    types: Chain.Eip3009.transferWithAuthorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: authorization
  })
  return {
    x402Version: 2,
    resource: { url: "https://api.example.com/weather" },
    accepted: requirements,
    payload: {
      signature,
      authorization: {
        from: authorization.from,
        to: authorization.to,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
        nonce: authorization.nonce
      }
    }
  }
}
