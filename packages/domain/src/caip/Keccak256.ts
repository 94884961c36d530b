/**
 * Keccak-256 as Ethereum uses it: the original Keccak submission with padding byte 0x01, which
 * differs from the standardised SHA3-256 (padding 0x06) only in that byte. Written here because the
 * domain package may depend on `effect` alone; it is only used to checksum addresses, so the code
 * favours clarity (64-bit lanes as BigInt) over speed.
 *
 * @see https://keccak.team/keccak_specs_summary.html
 */

/** Keccak-256 absorbs 136 bytes per permutation: 1600-bit state minus a 512-bit capacity. */
const RATE_BYTES = 136
const OUTPUT_BYTES = 32
const ROUNDS = 24

/** ι step constants, one per round. */
// prettier-ignore
const ROUND_CONSTANTS: ReadonlyArray<bigint> = [
  0x0000000000000001n, 0x0000000000008082n, 0x800000000000808an, 0x8000000080008000n,
  0x000000000000808bn, 0x0000000080000001n, 0x8000000080008081n, 0x8000000000008009n,
  0x000000000000008an, 0x0000000000000088n, 0x0000000080008009n, 0x000000008000000an,
  0x000000008000808bn, 0x800000000000008bn, 0x8000000000008089n, 0x8000000000008003n,
  0x8000000000008002n, 0x8000000000000080n, 0x000000000000800an, 0x800000008000000an,
  0x8000000080008081n, 0x8000000000008080n, 0x0000000080000001n, 0x8000000080008008n
]

/** ρ step rotation of the lane at index `x + 5 * y`. */
// prettier-ignore
const ROTATIONS: ReadonlyArray<bigint> = [
  0n, 1n, 62n, 28n, 27n,
  36n, 44n, 6n, 55n, 20n,
  3n, 10n, 43n, 25n, 39n,
  41n, 45n, 15n, 21n, 8n,
  18n, 2n, 61n, 56n, 14n
]

const rotateLeft = (lane: bigint, by: bigint): bigint => BigInt.asUintN(64, (lane << by) | (lane >> (64n - by)))

/**
 * The Keccak-f[1600] permutation, in place. Lanes live in a BigUint64Array indexed `x + 5 * y`;
 * storing into it keeps every lane within 64 bits.
 */
const permute = (state: BigUint64Array): void => {
  const columns = new BigUint64Array(5)
  const moved = new BigUint64Array(25)
  for (let round = 0; round < ROUNDS; round++) {
    // θ: xor every lane with the parities of the two neighbouring columns.
    for (let x = 0; x < 5; x++) {
      columns[x] = state[x]! ^ state[x + 5]! ^ state[x + 10]! ^ state[x + 15]! ^ state[x + 20]!
    }
    for (let x = 0; x < 5; x++) {
      const d = columns[(x + 4) % 5]! ^ rotateLeft(columns[(x + 1) % 5]!, 1n)
      for (let y = 0; y < 25; y += 5) state[x + y] = state[x + y]! ^ d
    }
    // ρ and π: rotate each lane and move (x, y) to (y, 2x + 3y).
    for (let x = 0; x < 5; x++) {
      for (let y = 0; y < 5; y++) {
        moved[y + 5 * ((2 * x + 3 * y) % 5)] = rotateLeft(state[x + 5 * y]!, ROTATIONS[x + 5 * y]!)
      }
    }
    // χ: the only non-linear step, along rows.
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        state[x + y] = moved[x + y]! ^ (~moved[((x + 1) % 5) + y]! & moved[((x + 2) % 5) + y]!)
      }
    }
    // ι: break the symmetry between rounds.
    state[0] = state[0]! ^ ROUND_CONSTANTS[round]!
  }
}

/**
 * Keccak-256 digest (32 bytes) of `bytes`, as used by Ethereum for addresses and EIP-55 checksums.
 * This is not SHA3-256: the two differ in their padding and so give different digests.
 *
 * @example
 * keccak256(new Uint8Array()) // c5d24601…5d85a470
 */
export const keccak256 = (bytes: Uint8Array): Uint8Array => {
  // Pad with 0x01 … 0x80 (the same byte 0x81 when only one is free) to a whole number of blocks.
  const padded = new Uint8Array((Math.floor(bytes.length / RATE_BYTES) + 1) * RATE_BYTES)
  padded.set(bytes)
  padded[bytes.length] = 0x01
  padded[padded.length - 1] = padded[padded.length - 1]! | 0x80

  const state = new BigUint64Array(25)
  const input = new DataView(padded.buffer)
  for (let block = 0; block < padded.length; block += RATE_BYTES) {
    for (let lane = 0; lane < RATE_BYTES / 8; lane++) {
      state[lane] = state[lane]! ^ input.getBigUint64(block + lane * 8, true)
    }
    permute(state)
  }

  // 32 bytes fit within one block's rate, so a single squeeze suffices.
  const digest = new Uint8Array(OUTPUT_BYTES)
  const output = new DataView(digest.buffer)
  for (let lane = 0; lane < OUTPUT_BYTES / 8; lane++) output.setBigUint64(lane * 8, state[lane]!, true)
  return digest
}
