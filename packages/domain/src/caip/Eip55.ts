/**
 * EIP-55 mixed-case checksums for Ethereum addresses.
 *
 * @see https://eips.ethereum.org/EIPS/eip-55
 */
import { Result } from "effect"
import { keccak256 } from "./Keccak256.ts"

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/

/** Whether `address` is `0x` followed by 40 hex digits in any case; the checksum is not looked at. */
export const isHexAddress = (address: string): boolean => HEX_ADDRESS.test(address)

// The same few addresses (tokens, collection addresses, regular payers) are checksummed on every
// request that names them: the last few thousand are remembered (a pure function of its input).
const maxRemembered = 4096
const checksums = new Map<string, string>()

/**
 * The EIP-55 checksum form of an address (`0x` + 40 hex digits, any case): each hex letter is
 * upper-cased when the matching nibble of keccak256(lower-case digits as ASCII) is 8 or more.
 * The input's case is ignored; check its shape first with {@link isHexAddress}.
 *
 * @example
 * toChecksumAddress("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed") // "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
 */
export const toChecksumAddress = (address: string): string => {
  const digits = address.slice(2).toLowerCase()
  const known = checksums.get(digits)
  if (known !== undefined) return known
  const hash = keccak256(Uint8Array.from(digits, (digit) => digit.charCodeAt(0)))
  let checksummed = "0x"
  for (let i = 0; i < digits.length; i++) {
    const byte = hash[i >> 1] ?? 0
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f
    const digit = digits.charAt(i)
    checksummed += nibble >= 8 ? digit.toUpperCase() : digit
  }
  if (checksums.size >= maxRemembered) checksums.clear()
  checksums.set(digits, checksummed)
  return checksummed
}

/** Whether `address` is `0x` + 40 hex digits written exactly in its EIP-55 checksum form. */
export const isValidEip55 = (address: string): boolean =>
  isHexAddress(address) && toChecksumAddress(address) === address

/**
 * Validates an address and returns its EIP-55 checksum form. All-lower-case and all-upper-case
 * digits carry no checksum and are accepted; mixed case is a checksum and must be exact, since a
 * mismatch usually means a mistyped address. The failure is a phrase for error messages.
 */
export const normalizeEip55Address = (address: string): Result.Result<string, string> => {
  if (!isHexAddress(address)) return Result.fail("must be 0x followed by 40 hex digits")
  const checksummed = toChecksumAddress(address)
  const digits = address.slice(2)
  const uniformCase = digits === digits.toLowerCase() || digits === digits.toUpperCase()
  return uniformCase || address === checksummed
    ? Result.succeed(checksummed)
    : Result.fail("has a wrong EIP-55 checksum (mixed-case addresses must match it exactly)")
}
