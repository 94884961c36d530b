/**
 * EIP-3009 "Transfer With Authorization": the EIP-712 typed data a buyer signs for a pull payment,
 * and the token functions the service calls to read the signing domain and to submit the transfer.
 *
 * @see https://eips.ethereum.org/EIPS/eip-3009
 * @module
 */
import { type Address, type Hex, parseAbi } from "viem"

/** The token functions and events used for EIP-3009 pull payments and ERC-20 push payments. */
export const eip3009TokenAbi = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "function transfer(address to, uint256 value) returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)"
])

/** The EIP-712 domain of an EIP-3009 token, as USDC defines it. */
export interface TokenDomain {
  readonly name: string
  readonly version: string
  readonly chainId: number
  readonly verifyingContract: Address
}

/** The signed message: move `value` from `from` to `to`, valid strictly between the two times, once per nonce. */
export interface TransferAuthorization {
  readonly from: Address
  readonly to: Address
  /** Token base units. */
  readonly value: bigint
  /** Unix seconds; the service always asks for 0. */
  readonly validAfter: bigint
  /** Unix seconds. */
  readonly validBefore: bigint
  /** 32 random bytes chosen with the quote. */
  readonly nonce: Hex
}

/** The EIP-712 types of the `TransferWithAuthorization` message. */
export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" }
  ]
} as const

/**
 * The complete typed data to sign or verify (what `eth_signTypedData_v4` receives, and what viem's
 * `hashTypedData` and `signTypedData` take).
 */
export const transferWithAuthorizationTypedData = (domain: TokenDomain, message: TransferAuthorization) => ({
  domain: {
    name: domain.name,
    version: domain.version,
    chainId: domain.chainId,
    verifyingContract: domain.verifyingContract
  },
  types: transferWithAuthorizationTypes,
  primaryType: "TransferWithAuthorization" as const,
  message: { ...message }
})

/** The EIP-712 types of `primaryType` including `EIP712Domain`, as wallets expect them in `eth_signTypedData_v4`. */
const walletTypes = (primaryType: AuthorizationType) => ({
  EIP712Domain: [
    { name: "name", type: "string" },
    { name: "version", type: "string" },
    { name: "chainId", type: "uint256" },
    { name: "verifyingContract", type: "address" }
  ],
  // EIP-3009's two messages have the same fields.
  [primaryType]: transferWithAuthorizationTypes.TransferWithAuthorization
})

/** EIP-3009's messages: a transfer anyone may submit, or one only its payee (`to`) may (a held payment's, to the escrow). */
export type AuthorizationType = "TransferWithAuthorization" | "ReceiveWithAuthorization"

/**
 * The JSON text of the typed data, the second parameter of `eth_signTypedData_v4`: `value` as a
 * decimal string (token amounts exceed JSON's safe integers), the times as numbers, as in API rules
 * §10 and the wire examples.
 */
export const transferWithAuthorizationJson = (
  domain: TokenDomain,
  message: TransferAuthorization,
  primaryType: AuthorizationType = "TransferWithAuthorization"
): string =>
  JSON.stringify({
    types: walletTypes(primaryType),
    primaryType,
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: domain.chainId,
      verifyingContract: domain.verifyingContract
    },
    message: {
      from: message.from,
      to: message.to,
      value: message.value.toString(),
      validAfter: Number(message.validAfter),
      validBefore: Number(message.validBefore),
      nonce: message.nonce
    }
  })
