import { Effect, Exit, Layer, Option } from "effect"
import { SecureRandom } from "effect/crypto"
import { describe, expect, it } from "vitest"
import { IdGenerator } from "../../src/ids/IdGenerator.ts"
import type { PartnerId } from "../../src/ids/Ids.ts"
import { DeliveryQueue } from "../../src/ports/DeliveryQueue.ts"
import { HostResolver } from "../../src/ports/HostResolver.ts"
import { WebhookEndpointRepository } from "../../src/ports/WebhookEndpointRepository.ts"
import { WebhookTransport } from "../../src/ports/WebhookTransport.ts"
import { layerMemoryMerchants } from "../../src/testing/MemoryMerchantRepository.ts"
import type { WebhookEndpoint } from "../../src/webhooks/WebhookEndpoint.ts"
import { Webhooks } from "../../src/usecases/Webhooks.ts"
import { WebhookSettings } from "../../src/webhooks/WebhookSettings.ts"

// A resolver answering from a table; unknown names do not resolve.
const resolver = (table: Record<string, ReadonlyArray<string>>) =>
  Layer.succeed(HostResolver, HostResolver.of({
    resolve: (host) => {
      const found = table[host]
      return found === undefined ? Effect.fail({ _tag: "ResolveFailure" as const, message: "nope" }) : Effect.succeed(found)
    }
  }))

const stored: Array<WebhookEndpoint> = []
const endpoints = Layer.succeed(WebhookEndpointRepository, WebhookEndpointRepository.of({
  insert: (e) => Effect.sync(() => void stored.push(e)),
  find: () => Effect.succeed(Option.none()),
  list: () => Effect.succeed([]),
  active: () => Effect.succeed([]),
  update: () => Effect.succeed(false),
  remove: () => Effect.succeed(false)
}))
const queue = Layer.succeed(DeliveryQueue, {} as DeliveryQueue["Service"])
const transport = Layer.succeed(WebhookTransport, {} as WebhookTransport["Service"])

const register = (url: string, options: { readonly allowPrivate?: boolean; readonly mode?: "live" | "sandbox" } = {}) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return yield* webhooks.register({ partnerId: "ptn_1" as PartnerId, mode: options.mode ?? "live", apiVersion: "2026-02-18" }, { url })
  }).pipe(
    Effect.provide(Webhooks.layer),
    Effect.provide(Layer.mergeAll(
      endpoints,
      queue,
      layerMemoryMerchants(),
      resolver({ "evil.example": ["127.0.0.1"], "mixed.example": ["93.184.216.34", "10.1.2.3"], "good.example": ["93.184.216.34", "2606:2800::1"] }),
      IdGenerator.layer.pipe(Layer.provide(SecureRandom.layerWebCrypto)),
      SecureRandom.layerWebCrypto,
      transport
    )),
    Effect.provideService(WebhookSettings, {
      allowPrivateAddresses: options.allowPrivate ?? false,
      retrySchedule: { delays: [], jitter: 0 },
      requestTimeoutMs: 1000
    }),
    Effect.runPromiseExit
  )

const codeOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Exit.findErrorOption(exit))?._tag : "ok"

describe("Webhooks.register SSRF guard", () => {
  it("refuses a host name that resolves to a non-public address (any of them)", async () => {
    expect(codeOf(await register("https://evil.example/hook"))).toBe("ParamsValidation")
    expect(codeOf(await register("https://mixed.example/hook"))).toBe("ParamsValidation")
    expect(codeOf(await register("https://good.example/hook"))).toBe("ok")
  })

  it("accepts a name that does not resolve yet (delivery checks again)", async () => {
    expect(codeOf(await register("https://not-yet.example/hook"))).toBe("ok")
  })

  it("lets the configuration allow private addresses and plain HTTP", async () => {
    expect(codeOf(await register("http://evil.example/hook", { allowPrivate: true }))).toBe("ok")
    expect(codeOf(await register("http://127.0.0.1:8080/hook", { allowPrivate: true }))).toBe("ok")
    expect(codeOf(await register("http://good.example/hook"))).toBe("ParamsValidation")
    expect(codeOf(await register("http://good.example/hook", { mode: "sandbox" }))).toBe("ok")
    expect(codeOf(await register("http://127.0.0.1/hook", { mode: "sandbox" }))).toBe("ParamsValidation")
  })

  it("tells a sandbox key how to receive events locally; a live key only why it was refused", async () => {
    const messageOf = (exit: Exit.Exit<unknown, { readonly message: string }>) =>
      Exit.isFailure(exit) ? Option.getOrUndefined(Exit.findErrorOption(exit))?.message : "ok"
    for (const url of ["http://127.0.0.1:4242/hook", "http://localhost:4242/hook", "https://evil.example/hook"]) {
      const sandbox = messageOf(await register(url, { mode: "sandbox" }))
      expect(sandbox).toMatch(/^url must not point to a (loopback|private) address\./)
      expect(sandbox).toContain("WEBHOOK_ALLOW_PRIVATE=true")
      expect(sandbox).toContain("npm run webhooks -- listen --forward-to")
      expect(messageOf(await register(url.replace("http:", "https:")))).toMatch(/^url must not point to a (loopback|private) address\.$/)
    }
  })

  it("keeps the URL as given and subscribes to every type when events are absent", async () => {
    const exit = await register("https://good.example/hook?x=1")
    expect(Exit.isSuccess(exit)).toBe(true)
    const created = stored.at(-1)!
    expect(created.url).toBe("https://good.example/hook?x=1")
    expect(created.events).toEqual([])
    expect(created.id).toMatch(/^whe_/)
  })
})
