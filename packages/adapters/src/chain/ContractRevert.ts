/**
 * Reading why a contract call's simulation reverted: the contract's custom error (or a token's revert
 * string) from the data the node passed on, for refusals that name it.
 *
 * @module
 */
import { type Abi, decodeErrorResult, type Hex } from "viem"
import type { CallReverted } from "./SubmitAuthorization.ts"

/** A decoded revert: the error's name (or the revert string) and, for messages, it with its arguments. */
export interface DecodedRevert {
  readonly name: string
  readonly text: string
}

/** Decodes reverts against the errors of `abis` (the contract's and those of the contracts it calls). */
export const revertDecoder = (...abis: ReadonlyArray<Abi>) => {
  const errorsAbi = abis.flat().filter((item) => item.type === "error")
  return (revert: CallReverted): DecodedRevert | undefined => {
    if (revert.data === undefined) return undefined
    try {
      const decoded = decodeErrorResult({ abi: errorsAbi, data: revert.data as Hex })
      const args = (decoded.args ?? []) as ReadonlyArray<unknown>
      // viem decodes a revert string (`Error(string)`, e.g. a token's) beside the ABI's errors.
      if ((decoded.errorName as string) === "Error") return { name: String(args[0]), text: String(args[0]) }
      return { name: decoded.errorName, text: args.length === 0 ? decoded.errorName : `${decoded.errorName}(${args.join(", ")})` }
    } catch {
      return undefined
    }
  }
}
