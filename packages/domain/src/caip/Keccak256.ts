/**
 * Keccak-256 as Ethereum uses it: the original Keccak submission with padding byte 0x01, which
 * differs from the standardised SHA3-256 (padding 0x06) only in that byte. Written here because the
 * domain package may depend on `effect` alone. It checksums every address a request decodes, so
 * each 64-bit lane is held as two 32-bit halves (`Uint32Array`): plain integer operations, several
 * times faster than the same steps on BigInt lanes.
 *
 * @see https://keccak.team/keccak_specs_summary.html
 */

/** Keccak-256 absorbs 136 bytes per permutation: 1600-bit state minus a 512-bit capacity. */
const RATE_BYTES = 136
const OUTPUT_BYTES = 32
const ROUNDS = 24

/** ι step constants, one per round, as [high, low] 32-bit halves. */
// prettier-ignore
const ROUND_CONSTANTS: ReadonlyArray<readonly [number, number]> = [
  [0x00000000, 0x00000001], [0x00000000, 0x00008082], [0x80000000, 0x0000808a], [0x80000000, 0x80008000],
  [0x00000000, 0x0000808b], [0x00000000, 0x80000001], [0x80000000, 0x80008081], [0x80000000, 0x00008009],
  [0x00000000, 0x0000008a], [0x00000000, 0x00000088], [0x00000000, 0x80008009], [0x00000000, 0x8000000a],
  [0x00000000, 0x8000808b], [0x80000000, 0x0000008b], [0x80000000, 0x00008089], [0x80000000, 0x00008003],
  [0x80000000, 0x00008002], [0x80000000, 0x00000080], [0x00000000, 0x0000800a], [0x80000000, 0x8000000a],
  [0x80000000, 0x80008081], [0x80000000, 0x00008080], [0x00000000, 0x80000001], [0x80000000, 0x80008008]
]

/** ρ step rotation of the lane at index `x + 5 * y`. */
// prettier-ignore
const ROTATIONS: ReadonlyArray<number> = [
  0, 1, 62, 28, 27,
  36, 44, 6, 55, 20,
  3, 10, 43, 25, 39,
  41, 45, 15, 21, 8,
  18, 2, 61, 56, 14
]

/** π step: where the lane at index `x + 5 * y` moves, `(y, 2x + 3y)`. */
const DESTINATIONS: ReadonlyArray<number> = Array.from({ length: 25 }, (_, i) => {
  const x = i % 5
  const y = (i - x) / 5
  return y + 5 * ((2 * x + 3 * y) % 5)
})

/**
 * Rotates the 64-bit lane `(hi, lo)` left by `by` bits into `out[2 * at]` (low half) and
 * `out[2 * at + 1]` (high half).
 */
const rotateInto = (out: Uint32Array, at: number, hi: number, lo: number, by: number): void => {
  if (by >= 32) {
    // Rotating by 32 swaps the halves; the rest is a rotation by `by - 32`.
    const swap = hi
    hi = lo
    lo = swap
    by -= 32
  }
  out[2 * at] = by === 0 ? lo : (lo << by) | (hi >>> (32 - by))
  out[2 * at + 1] = by === 0 ? hi : (hi << by) | (lo >>> (32 - by))
}

// Scratch space of `permute`, reused: it runs synchronously, so no two calls ever share it.
const columns = new Uint32Array(10)
const theta = new Uint32Array(2)
const moved = new Uint32Array(50)

/**
 * The Keccak-f[1600] permutation, in place. Lane `x + 5 * y` lives in `state[2i]` (low 32 bits)
 * and `state[2i + 1]` (high 32 bits); storing into the array keeps every half within 32 bits.
 */
const permute = (state: Uint32Array): void => {
  for (let round = 0; round < ROUNDS; round++) {
    // θ: xor every lane with the parities of the two neighbouring columns.
    for (let h = 0; h < 10; h++) {
      columns[h] = state[h]! ^ state[h + 10]! ^ state[h + 20]! ^ state[h + 30]! ^ state[h + 40]!
    }
    for (let x = 0; x < 5; x++) {
      const next = (x + 1) % 5
      rotateInto(theta, 0, columns[2 * next + 1]!, columns[2 * next]!, 1)
      const lo = columns[2 * ((x + 4) % 5)]! ^ theta[0]!
      const hi = columns[2 * ((x + 4) % 5) + 1]! ^ theta[1]!
      for (let y = 0; y < 25; y += 5) {
        state[2 * (x + y)] = state[2 * (x + y)]! ^ lo
        state[2 * (x + y) + 1] = state[2 * (x + y) + 1]! ^ hi
      }
    }
    // ρ and π: rotate each lane and move it to its new place.
    for (let i = 0; i < 25; i++) rotateInto(moved, DESTINATIONS[i]!, state[2 * i + 1]!, state[2 * i]!, ROTATIONS[i]!)
    // χ: the only non-linear step, along rows.
    for (let y = 0; y < 25; y += 5) {
      for (let x = 0; x < 5; x++) {
        const i = 2 * (x + y)
        const a = 2 * (((x + 1) % 5) + y)
        const b = 2 * (((x + 2) % 5) + y)
        state[i] = moved[i]! ^ (~moved[a]! & moved[b]!)
        state[i + 1] = moved[i + 1]! ^ (~moved[a + 1]! & moved[b + 1]!)
      }
    }
    // ι: break the symmetry between rounds.
    const [hi, lo] = ROUND_CONSTANTS[round]!
    state[0] = state[0]! ^ lo
    state[1] = state[1]! ^ hi
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

  // Lanes are little-endian 64-bit words: the low half comes first.
  const state = new Uint32Array(50)
  const input = new DataView(padded.buffer)
  for (let block = 0; block < padded.length; block += RATE_BYTES) {
    for (let half = 0; half < RATE_BYTES / 4; half++) {
      state[half] = state[half]! ^ input.getUint32(block + half * 4, true)
    }
    permute(state)
  }

  // 32 bytes fit within one block's rate, so a single squeeze suffices.
  const digest = new Uint8Array(OUTPUT_BYTES)
  const output = new DataView(digest.buffer)
  for (let half = 0; half < OUTPUT_BYTES / 4; half++) output.setUint32(half * 4, state[half]!, true)
  return digest
}
