import { Database, DataDirLock, GatewayServices, WebhookAdapters } from "@paygate/adapters"
import { ConfigProvider, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { widerThanOwner } from "../../../test/support/FileModes.ts"


const modeOf = async (path: string) => (await stat(path)).mode & 0o777

describe("the local set-up's files are owner-only", () => {
  const made: Array<string> = []
  afterEach(async () => {
    for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true })
  })
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "paygate-private-"))
    made.push(dir)
    return dir
  }

  it("the embedded database: its directory and parents it creates 0700, every file in it 0600 (configuration and WAL too), open and closed", async () => {
    const dataDir = join(await tempDir(), "data", "pglite")
    const scope = Effect.runSync(Scope.make())
    await Effect.runPromise(Database.startEmbedded({ dataDir }).pipe(Scope.provide(scope)))
    const files = await readdir(dataDir, { recursive: true })
    expect(files).toEqual(expect.arrayContaining(["postgresql.conf", "pg_hba.conf", join("pg_wal", "000000010000000000000001")]))
    expect(await widerThanOwner(dataDir)).toEqual([])
    expect(await modeOf(join(dataDir, ".."))).toBe(0o700)
    expect(await modeOf(DataDirLock.lockPathOf(dataDir))).toBe(0o600)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    expect(await widerThanOwner(dataDir)).toEqual([])
  }, 120_000)

  it("a data directory left with wide modes (an older version, a restored copy) is made owner-only when it opens", async () => {
    const dataDir = join(await tempDir(), "pglite")
    await Effect.runPromise(Effect.scoped(Database.startEmbedded({ dataDir })))
    await chmod(dataDir, 0o777)
    await chmod(join(dataDir, "postgresql.conf"), 0o666)
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      yield* Database.startEmbedded({ dataDir })
      expect(yield* Effect.promise(() => widerThanOwner(dataDir))).toEqual([])
    })))
  }, 120_000)

  it("the local key files: created 0600 in a 0700 directory, and made 0600 again when found wider (copied, restored)", async () => {
    const dataDir = join(await tempDir(), "data", "pglite")
    const optionIdSecret = `${dataDir}.option-id-secret`
    const webhookKey = WebhookAdapters.SecretCipher.localKeyPath(dataDir)
    const config = ConfigProvider.layer(ConfigProvider.fromUnknown({ PAYGATE_DATA_DIR: dataDir }))
    const readOptionIdSecret = () => Effect.runPromise(GatewayServices.secretFromConfig.pipe(Effect.provide(config)))
    await readOptionIdSecret()
    expect(await modeOf(optionIdSecret)).toBe(0o600)
    expect(await modeOf(join(dataDir, ".."))).toBe(0o700)
    await chmod(optionIdSecret, 0o644)
    await readOptionIdSecret()
    expect(await modeOf(optionIdSecret)).toBe(0o600)

    // A webhook key restored with a wide mode before the service first reads it.
    await writeFile(webhookKey, `${WebhookAdapters.SecretCipher.generateKey()}\n`, { mode: 0o644 })
    await chmod(webhookKey, 0o644)
    await Effect.runPromise(Effect.gen(function*() {
      yield* (yield* WebhookAdapters.SecretCipher.WebhookSecretCipher).encrypt("whe_1", Redacted.make("whsec_x"))
    }).pipe(Effect.provide(WebhookAdapters.SecretCipher.layerFromConfig.pipe(Layer.provide(config)))))
    expect(await modeOf(webhookKey)).toBe(0o600)
  })
})
