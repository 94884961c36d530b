/**
 * EVM addresses as configuration values: `0x` + 40 hex digits, decoded to their EIP-55 checksum
 * form (mixed-case input must carry a correct checksum, as in the domain's CAIP-10 rules).
 *
 * @module
 */
import { Caip } from "@paygate/domain"
import { Result, Schema, SchemaGetter } from "effect"
import type { Address } from "viem"

const zeroAddress = "0x0000000000000000000000000000000000000000"

const Checksummed = Schema.String.pipe(
  Schema.refine((text: string): text is Address => Caip.isValidEip55(text), { expected: "an EIP-55 address" })
)

/**
 * An EVM address. Decoding accepts any case (checked against the EIP-55 checksum when mixed) and
 * yields the checksum form; the zero address is refused, since nothing sent there can be recovered.
 *
 * @example
 * Schema.decodeUnknownSync(EvmAddress)("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")
 * // "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
 */
export const EvmAddress = Schema.String.pipe(
  Schema.check(
    Schema.makeFilter(
      (text: string) =>
        Result.match(Caip.normalizeEip55Address(text), {
          onFailure: (reason) => `not an address: it ${reason}`,
          onSuccess: () => text.toLowerCase() !== zeroAddress || "the zero address is not allowed here"
        }),
      { expected: "an EVM address" }
    )
  ),
  Schema.decodeTo(Checksummed, {
    decode: SchemaGetter.transform((text: string) =>
      Result.getOrElse(Caip.normalizeEip55Address(text), () => text)
    ),
    encode: SchemaGetter.passthrough()
  })
)

/** Whether two addresses are the same account (case-insensitive). */
export const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()
