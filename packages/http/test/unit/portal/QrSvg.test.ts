/**
 * The QR code image of the deposit view: the SVG, drawn to pixels the way its path says, decodes
 * (jsQR) to exactly the text it was made of, the deposit option's EIP-681 transfer request
 * (`eip681Transfer`) of any token, chain, amount and address.
 */
import { eip681Transfer } from "@paygate/domain"
import { Effect } from "effect"
import fc from "fast-check"
import jsqr from "jsqr"
import { describe, expect, it } from "vitest"
import { qrSvg } from "../../../src/portal/QrSvg.ts"
import { parseTransferUri } from "../../../../../test/support/TransferUri.ts"

/** Draws the SVG's runs (`M x y h w v1 h-w z`) at `scale` pixels a module, RGBA. */
const rasterize = (svg: string, scale: number) => {
  const size = Number(/viewBox="0 0 (\d+) \1"/.exec(svg)?.[1])
  const width = size * scale
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255)
  for (const [, x, y, w] of svg.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
    for (let py = Number(y) * scale; py < (Number(y) + 1) * scale; py++) {
      for (let px = Number(x) * scale; px < (Number(x) + Number(w)) * scale; px++) pixels.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3)
    }
  }
  return { pixels, width }
}

// A CommonJS module whose `module.exports` is the function and also carries it as `default`.
const jsQR = jsqr.default

const decode = (svg: string) => {
  const { pixels, width } = rasterize(svg, 4)
  return jsQR(pixels, width, width)?.data
}

const hex = (length: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF"), minLength: length, maxLength: length })

describe("qrSvg", () => {
  it("encodes an EIP-681 transfer request exactly, with a quiet zone of four modules", async () => {
    const uri = "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@31337/transfer?address=0x8e1d2C7c1f2B0fB5ab6E5D4f5cC1f3A9bE1e2D3c&uint256=12500000"
    const svg = await Effect.runPromise(qrSvg(uri))
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 (\d+) \1" shape-rendering="crispEdges">/)
    expect(decode(svg)).toBe(uri)
    expect(parseTransferUri(decode(svg)!)).toEqual({
      token: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
      chainId: 31337,
      to: "0x8e1d2C7c1f2B0fB5ab6E5D4f5cC1f3A9bE1e2D3c",
      value: 12_500_000n
    })
    // Nothing is drawn in the quiet zone.
    const size = Number(/viewBox="0 0 (\d+)/.exec(svg)![1])
    for (const [, x, y, w] of svg.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) {
      expect(Math.min(Number(x), Number(y))).toBeGreaterThanOrEqual(4)
      expect(Math.max(Number(x) + Number(w), Number(y) + 1)).toBeLessThanOrEqual(size - 4)
    }
  })

  it("decodes to the same transfer as the deposit option's URI, for any token, chain, address and amount", async () => {
    await fc.assert(
      fc.asyncProperty(hex(40), fc.integer({ min: 1, max: 2 ** 40 }), hex(40), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), async (token, chainId, to, value) => {
        const uri = eip681Transfer(`0x${token}`, String(chainId), `0x${to}`, value.toString())
        expect(uri).toBe(`ethereum:0x${token}@${chainId}/transfer?address=0x${to}&uint256=${value}`)
        const decoded = decode(await Effect.runPromise(qrSvg(uri)))
        expect(decoded).toBe(uri)
        expect(parseTransferUri(decoded!)).toEqual({ token: `0x${token}`, chainId, to: `0x${to}`, value })
      }),
      { numRuns: 25 }
    )
  })
})
