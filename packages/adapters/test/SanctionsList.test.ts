import { SanctionsList } from "@paygate/adapters"
import { SanctionsScreening } from "@paygate/domain"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const list = `# OFAC sample
eip155:1:0x8589427373D6D84E98730D7795D8f6f8731FDA16   # exact chain only
0x722122dF12D4e14e13Ac3b6895a86e84145b6967

  0xDD4C48C0B24039969FC16D1CDF626EAB821D3384
`

const checks = (layer: Layer.Layer<SanctionsScreening, unknown>) =>
  Effect.gen(function*() {
    const s = yield* SanctionsScreening
    const is = (account: string) => s.isSanctioned(account)
    // CAIP-10 entry: that chain only, any case.
    assert.isTrue(yield* is("eip155:1:0x8589427373D6D84E98730D7795D8f6f8731FDA16"))
    assert.isTrue(yield* is("eip155:1:0x8589427373d6d84e98730d7795d8f6f8731fda16"))
    assert.isFalse(yield* is("eip155:8453:0x8589427373D6D84E98730D7795D8f6f8731FDA16"))
    // Bare entries: every eip155 chain, any case.
    assert.isTrue(yield* is("eip155:1:0x722122dF12D4e14e13Ac3b6895a86e84145b6967"))
    assert.isTrue(yield* is("eip155:8453:0x722122df12d4e14e13ac3b6895a86e84145b6967"))
    assert.isTrue(yield* is("eip155:31337:0xdd4c48c0b24039969fc16d1cdf626eab821d3384"))
    // Not listed.
    assert.isFalse(yield* is("eip155:1:0x70997970C51812dc3A010C7d01b50e0d17dc79C8"))
  }).pipe(Effect.provide(layer))

describe("SanctionsList", () => {
  it.effect("matches CAIP-10 entries on their chain and bare addresses on every eip155 chain", () =>
    checks(SanctionsList.layerFromText(list)))

  it.effect("reads the file named by SANCTIONS_FILE", () => {
    const dir = mkdtempSync(join(tmpdir(), "sanctions-"))
    const file = join(dir, "list.txt")
    writeFileSync(file, list)
    return checks(SanctionsList.layerFromConfig.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ SANCTIONS_FILE: file })))
    ))
  })

  it.effect("without SANCTIONS_FILE, nobody is sanctioned", () =>
    Effect.gen(function*() {
      const s = yield* SanctionsScreening
      assert.isFalse(yield* s.isSanctioned("eip155:1:0x722122dF12D4e14e13Ac3b6895a86e84145b6967"))
    }).pipe(Effect.provide(SanctionsList.layerFromConfig.pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({})))
    ))))

  it.effect("a malformed line or a missing file stops start-up", () =>
    Effect.gen(function*() {
      const bad = yield* Effect.flip(Layer.build(SanctionsList.layerFromText("0x1234\n# ok\neip155:1:0x8589427373D6D84E98730D7795D8f6f8731FDA16\nnot an address")).pipe(Effect.scoped))
      assert.include(bad.message, "line(s) 1, 4")
      const missing = yield* Effect.flip(Layer.build(SanctionsList.layerFromFile("/nonexistent/sanctions.txt")).pipe(Effect.scoped))
      assert.include(missing.message, "/nonexistent/sanctions.txt")
    }))
})
