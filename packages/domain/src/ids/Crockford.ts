const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/**
 * The 26-character Crockford base32 body of a generated id: 48 bits of milliseconds since the
 * epoch (so ids sort by creation time) followed by 80 random bits (so they cannot be guessed).
 */
export const encodeIdBody = (millis: number, random: Uint8Array): string => {
  if (random.length !== 10) throw new RangeError("an id body needs exactly 10 random bytes")
  let time = BigInt(Math.max(0, Math.floor(millis))) & 0xffff_ffff_ffffn
  let head = ""
  for (let i = 0; i < 10; i++) {
    head = alphabet[Number(time & 31n)] + head
    time >>= 5n
  }
  let bits = 0n
  for (const byte of random) bits = (bits << 8n) | BigInt(byte)
  let tail = ""
  for (let i = 0; i < 16; i++) {
    tail = alphabet[Number(bits & 31n)] + tail
    bits >>= 5n
  }
  return head + tail
}
