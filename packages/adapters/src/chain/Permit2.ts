/**
 * Uniswap's Permit2 signature transfers, for ERC-20 tokens without EIP-3009 (USDT): the buyer approves
 * Permit2 on the token once, then signs a `PermitTransferFrom` (token, amount, spender = our executor,
 * nonce, deadline) under the EIP-712 domain `{name: "Permit2", chainId, verifyingContract}`; the
 * executor calls `permitTransferFrom` with the collection address and the amount as transfer details.
 * Permit2 lives at the same address on every EVM chain; local chains get `TestPermit2.sol` there.
 *
 * The permit's nonce is the quote's 32 random bytes read as a uint256: a bit in Permit2's unordered
 * bitmap of the owner, used once.
 *
 * Permit2's other half, allowances, is signed as a `PermitSingle` (token, amount, expiration, the owner's
 * ordered nonce for the token and spender; spender; signature deadline): recurring payments use it.
 *
 * @module
 */
import { type Address, decodeFunctionData, encodeFunctionData, type Hex, parseAbi, toHex } from "viem"

/** Permit2's canonical address on every EVM chain. */
export const permit2Address: Address = "0x000000000022D473030F116dDEE9F6B43aC78BA3"

/** The parts of Permit2 the service calls, as Uniswap publishes them. */
export const permit2Abi = parseAbi([
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
  "function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)",
  "function permitTransferFrom(((address token, uint256 amount) permitted, uint256 nonce, uint256 deadline) permit, (address to, uint256 requestedAmount) transferDetails, address owner, bytes signature)",
  "function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)"
])

/** The token calls of the approve step. */
export const allowanceAbi = parseAbi([
  "function allowance(address owner, address spender) view returns (uint256)",
  "function approve(address spender, uint256 value) returns (bool)"
])

/** One signature transfer: what the buyer signs. */
export interface PermitTransfer {
  readonly token: Address
  /** Token base units. */
  readonly amount: bigint
  /** Who may use the permit: the chain's executor. */
  readonly spender: Address
  readonly nonce: bigint
  /** Unix seconds; the last second the permit can be used. */
  readonly deadline: bigint
}

export const permitTransferFromTypes = {
  PermitTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" }
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" }
  ]
} as const

/** Permit2's EIP-712 domain on a chain: no version. */
export const permit2Domain = (chainId: number) => ({ name: "Permit2", chainId, verifyingContract: permit2Address })

/** The typed data of a permit, for viem's `hashTypedData` and `signTypedData`. */
export const permitTransferFromTypedData = (chainId: number, permit: PermitTransfer) => ({
  domain: permit2Domain(chainId),
  types: permitTransferFromTypes,
  primaryType: "PermitTransferFrom" as const,
  message: {
    permitted: { token: permit.token, amount: permit.amount },
    spender: permit.spender,
    nonce: permit.nonce,
    deadline: permit.deadline
  }
})

/** One allowance permit (Permit2's `PermitSingle`): `spender` may move up to `amount` of `token` until `expiration`. */
export interface PermitSingle {
  readonly details: {
    readonly token: Address
    readonly amount: bigint
    /** Unix seconds; the allowance's last second (0: the block that sets it). */
    readonly expiration: number
    /** The owner's current nonce for this token and spender in Permit2. */
    readonly nonce: number
  }
  readonly spender: Address
  /** Unix seconds; the last second the signature can be submitted. */
  readonly sigDeadline: bigint
}

const permitSingleTypes = {
  PermitSingle: [
    { name: "details", type: "PermitDetails" },
    { name: "spender", type: "address" },
    { name: "sigDeadline", type: "uint256" }
  ],
  PermitDetails: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint160" },
    { name: "expiration", type: "uint48" },
    { name: "nonce", type: "uint48" }
  ]
} as const

/** The typed data of an allowance permit, for viem's `hashTypedData` and `signTypedData`. */
export const permitSingleTypedData = (chainId: number, permit: PermitSingle) => ({
  domain: permit2Domain(chainId),
  types: permitSingleTypes,
  primaryType: "PermitSingle" as const,
  message: permit
})

/** Permit2's domain fields, as wallets expect them in `eth_signTypedData_v4`'s `types`. */
const permit2DomainTypes = [
  { name: "name", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" }
]

/** The `eth_signTypedData_v4` JSON of a permit (uint256 values as decimal strings). */
export const permitTransferFromJson = (chainId: number, permit: PermitTransfer): string =>
  JSON.stringify({
    types: { EIP712Domain: permit2DomainTypes, ...permitTransferFromTypes },
    primaryType: "PermitTransferFrom",
    domain: permit2Domain(chainId),
    message: {
      permitted: { token: permit.token, amount: permit.amount.toString() },
      spender: permit.spender,
      nonce: permit.nonce.toString(),
      deadline: permit.deadline.toString()
    }
  })

/** The `eth_signTypedData_v4` JSON of an allowance permit (uint160 and uint256 values as decimal strings, uint48 ones as numbers). */
export const permitSingleJson = (chainId: number, permit: PermitSingle): string =>
  JSON.stringify({
    types: { EIP712Domain: permit2DomainTypes, ...permitSingleTypes },
    primaryType: "PermitSingle",
    domain: permit2Domain(chainId),
    message: {
      details: { ...permit.details, amount: permit.details.amount.toString() },
      spender: permit.spender,
      sigDeadline: permit.sigDeadline.toString()
    }
  })

/** The executor's `permitTransferFrom` call: the whole permitted amount to `to`. */
export const permitTransferFromCalldata = (permit: PermitTransfer, owner: Address, to: Address, signature: Hex): Hex =>
  encodeFunctionData({
    abi: permit2Abi,
    functionName: "permitTransferFrom",
    args: [
      { permitted: { token: permit.token, amount: permit.amount }, nonce: permit.nonce, deadline: permit.deadline },
      { to, requestedAmount: permit.amount },
      owner,
      signature
    ]
  })

/** `approve(Permit2, value)` on a token. */
export const approvePermit2Calldata = (value: bigint): Hex =>
  encodeFunctionData({ abi: allowanceAbi, functionName: "approve", args: [permit2Address, value] })

/** Where a nonce's bit sits in Permit2's unordered bitmap. */
export const noncePosition = (nonce: bigint) => ({ wordPos: nonce >> 8n, bit: 1n << (nonce & 0xffn) })

/**
 * The permit that pays an option: the option's token and amount, for the chain's executor, with the
 * quote's nonce, usable until the second before `validBefore` (Permit2 accepts a permit at its
 * deadline, EIP-3009 refuses one at `validBefore`: the same last second for both).
 */
export const permitFor = (token: Address, value: bigint, spender: Address, nonce: Hex, validBefore: number): PermitTransfer => ({
  token,
  amount: value,
  spender,
  nonce: BigInt(nonce),
  deadline: BigInt(validBefore) - 1n
})

/**
 * The nonce (as the quote's 32 bytes, lower-case) of the permit that made a transfer of `value` from
 * `from` of `token`, when the transaction is a direct `permitTransferFrom` call to Permit2 with
 * exactly that owner, token, amount and recipient `collection`; else `null`.
 */
export const permitReference = (
  tx: { readonly input: Hex; readonly to: string | null },
  transfer: { readonly from: string; readonly token: string; readonly value: bigint },
  collection: Address
): string | null => {
  if (tx.to === null || tx.to.toLowerCase() !== permit2Address.toLowerCase()) return null
  try {
    const call = decodeFunctionData({ abi: permit2Abi, data: tx.input })
    if (call.functionName !== "permitTransferFrom") return null
    const [permit, details, owner] = call.args
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()
    if (!same(permit.permitted.token, transfer.token) || !same(owner, transfer.from) || !same(details.to, collection)) return null
    if (details.requestedAmount !== transfer.value) return null
    return toHex(permit.nonce, { size: 32 })
  } catch {
    return null
  }
}
