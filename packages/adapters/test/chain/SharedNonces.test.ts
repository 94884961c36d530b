/**
 * One nonce sequence per signing account across processes (`ExecutorSender` over
 * `SqlNonceSequences`): senders with separate memories (two worker processes) and one PostgreSQL
 * database, against anvil.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { type Hash, type PublicClient, toHex } from "viem"
import { startProxy } from "../../../../test/support/CuttableProxy.ts"
import * as Anvil from "../../src/chain/Anvil.ts"
import { anvilAccount } from "../../src/chain/AnvilAccounts.ts"
import * as ExecutorSender from "../../src/chain/ExecutorSender.ts"
import { type ChainRpcError, makeClient } from "../../src/chain/RpcCall.ts"
import { fromPrivateKey } from "../../src/chain/TransactionSigner.ts"
import * as Database from "../../src/Database.ts"
import * as Migrations from "../../src/Migrations.ts"
import { freshPostgresUrl } from "../support/TestDatabase.ts"

const serverUrl = process.env.TEST_DATABASE_URL ?? ""

/** What a client's broadcasts met. */
interface Broadcasts {
  sent: number
  refused: number
}

/** `client`, counting its broadcasts and those the node refused. */
const counting = (client: PublicClient, counts: Broadcasts): PublicClient =>
  new Proxy(client, {
    get(target, property, receiver) {
      if (property !== "sendRawTransaction") return Reflect.get(target, property, receiver)
      return async (args: Parameters<PublicClient["sendRawTransaction"]>[0]) => {
        counts.sent++
        try {
          return await target.sendRawTransaction(args)
        } catch (error) {
          counts.refused++
          throw error
        }
      }
    }
  })

/** `client` behind a provider whose pending count is stuck at the chain's start. */
const stale = (client: PublicClient): PublicClient =>
  new Proxy(client, {
    get(target, property, receiver) {
      return property === "getTransactionCount" ? async () => 0 : Reflect.get(target, property, receiver)
    }
  })

/** A worker process's database client: its own pool (and the nonce sequences in it). */
const processOn = (url: string) => Layer.build(Database.layerUrl(url, { maxConnections: 4 }))

/** A fresh chain and database, migrated. */
const world = Effect.gen(function*() {
  const node = yield* Anvil.start()
  const url = yield* freshPostgresUrl(serverUrl)
  const first = yield* processOn(url)
  yield* Effect.provideContext(Migrations.run, first)
  return { node, url, first, client: makeClient(Redacted.make(node.rpcUrl)) }
})

const key = Redacted.make(anvilAccount(5).privateKey)

const senderIn = (process: Context.Context<never>, client: PublicClient, chainId: number) =>
  ExecutorSender.make({ chainId: `eip155:${chainId}`, client, signer: fromPrivateKey(key) }).pipe(Effect.provideContext(process))

/** A self-call carrying `tag`: every request is a distinct transaction. */
const request = (sender: ExecutorSender.ExecutorSender, tag: number) => ({ to: sender.address, data: toHex(tag, { size: 4 }), gas: 30_000n })

const nonceOf = (client: PublicClient, hash: Hash) =>
  Effect.promise(() =>
    client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 20_000 }).then(() => client.getTransaction({ hash })).then((tx) => tx.nonce)
  )

/** A process whose database connections go through a proxy the test can cut. */
const behindProxy = (url: string) =>
  Effect.gen(function*() {
    const target = new URL(url)
    const proxy = yield* Effect.acquireRelease(
      Effect.promise(() => startProxy(`http://${target.hostname}:${target.port}`)),
      (proxy) => Effect.promise(() => proxy.close())
    )
    target.port = new URL(proxy.url).port
    return { proxy, process: yield* processOn(target.toString()) }
  })

/** Retries a send while the database's pool replaces connections the cut closed. */
const untilReachable = <A>(send: Effect.Effect<A, ChainRpcError>) => Effect.retry(send, { times: 5, while: (e) => e.failure === "unavailable" })

const anvilCall = (client: PublicClient, method: string, params: ReadonlyArray<unknown>) =>
  Effect.promise(() => client.request({ method: method as never, params: params as never }))

describe("ExecutorSender across processes (PostgreSQL)", () => {
  it.live("two processes send 40 transactions at once: nonces 0..39, every one mined, none refused", () =>
    Effect.scoped(Effect.gen(function*() {
      const { node, url, first, client } = yield* world
      const second = yield* processOn(url)
      const counts: Broadcasts = { sent: 0, refused: 0 }
      const senders = [
        yield* senderIn(first, counting(client, counts), node.chainId),
        yield* senderIn(second, counting(client, counts), node.chainId)
      ]
      const hashes = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, i) => i),
        (i) => senders[i % 2]!.send(request(senders[i % 2]!, i)),
        { concurrency: "unbounded" }
      )
      const nonces = yield* Effect.forEach(hashes, (hash) => nonceOf(client, hash), { concurrency: 8 })
      assert.deepStrictEqual(counts, { sent: 40, refused: 0 })
      assert.deepStrictEqual([...nonces].sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i))
    })), { timeout: 90_000 })

  it.live("a provider whose pending count lags cannot make a sender reuse a nonce", () =>
    Effect.scoped(Effect.gen(function*() {
      const { node, url, first, client } = yield* world
      const counts: Broadcasts = { sent: 0, refused: 0 }
      const honest = yield* senderIn(first, client, node.chainId)
      const lagging = yield* senderIn(yield* processOn(url), counting(stale(client), counts), node.chainId)
      for (let i = 0; i < 3; i++) yield* nonceOf(client, yield* honest.send(request(honest, i)))
      const nonces: Array<number> = []
      for (let i = 3; i < 6; i++) nonces.push(yield* nonceOf(client, yield* lagging.send(request(lagging, i))))
      assert.deepStrictEqual(nonces, [3, 4, 5])
      assert.deepStrictEqual(counts, { sent: 3, refused: 0 })
    })))

  const holdingTheRow = Effect.gen(function*() {
    const { node, url, first, client } = yield* world
    const holder = yield* senderIn(first, client, node.chainId)
    const other = yield* senderIn(yield* processOn(url), client, node.chainId)
    const holding = yield* Deferred.make<void>()
    // Holds the account's row forever: its record never answers.
    const stuck = yield* Effect.forkChild(holder.sendRecorded(request(holder, 1), () => Effect.andThen(Deferred.succeed(holding, undefined), Effect.never)))
    yield* Deferred.await(holding)
    const waiting = yield* Effect.forkChild(other.send(request(other, 2)))
    assert.isTrue(Option.isNone(yield* Effect.timeoutOption(Fiber.join(waiting), "700 millis")), "the other process waits for the row")
    return { first, client, stuck, waiting }
  })

  it.live("a holder interrupted mid-section releases the row: the other process sends", () =>
    Effect.scoped(Effect.gen(function*() {
      const { client, stuck, waiting } = yield* holdingTheRow
      yield* Fiber.interrupt(stuck)
      const hash = yield* Fiber.join(waiting).pipe(Effect.timeout("15 seconds"))
      assert.strictEqual(yield* nonceOf(client, hash), 0)
    })))

  it.live("a holder whose database connection dies releases the row: the other process sends", () =>
    Effect.scoped(Effect.gen(function*() {
      const { first, client, stuck, waiting } = yield* holdingTheRow
      const killed = yield* Effect.provideContext(
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql<{ pid: number }>`SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE '%FOR UPDATE%'`
        }),
        first
      )
      assert.strictEqual(killed.length, 1)
      const hash = yield* Fiber.join(waiting).pipe(Effect.timeout("15 seconds"))
      assert.strictEqual(yield* nonceOf(client, hash), 0)
      yield* Fiber.interrupt(stuck)
    })))

  it.live("the database down fails the send as unavailable, nothing broadcast; once back, sends resume", () =>
    Effect.scoped(Effect.gen(function*() {
      const { node, url, client } = yield* world
      const { proxy, process } = yield* behindProxy(url)
      const counts: Broadcasts = { sent: 0, refused: 0 }
      const sender = yield* senderIn(process, counting(client, counts), node.chainId)
      proxy.cut()
      const error = yield* Effect.flip(sender.send(request(sender, 1))).pipe(Effect.timeout("30 seconds"))
      assert.strictEqual(error._tag, "ChainRpcError")
      assert.strictEqual(error.failure, "unavailable")
      assert.strictEqual(counts.sent, 0)
      proxy.restore()
      const hash = yield* sender.send(request(sender, 2)).pipe(untilReachable)
      assert.strictEqual(yield* nonceOf(client, hash), 0)
    })))

  it.live("senders are shared within an application only: one closed leaves none behind, the next sends through its own database", () =>
    Effect.scoped(Effect.gen(function*() {
      const { node, url, first, client } = yield* world
      const options = { chainId: `eip155:${node.chainId}`, client, signer: fromPrivateKey(key), rpcUrl: Redacted.make(node.rpcUrl) }
      const sharedIn = (process: Context.Context<never>) => Effect.provide(ExecutorSender.shared(options), process)
      // An application that closes takes its pool with it; the next one, on another database, still sends.
      const application = (tag: number) =>
        Effect.scoped(Effect.gen(function*() {
          const process = yield* processOn(yield* freshPostgresUrl(serverUrl))
          yield* Effect.provideContext(Migrations.run, process)
          const sender = yield* sharedIn(process)
          return yield* nonceOf(client, yield* sender.send(request(sender, tag)))
        }))
      assert.deepStrictEqual([yield* application(1), yield* application(2)], [0, 1])

      const gateway = yield* sharedIn(first)
      assert.strictEqual(yield* sharedIn(first), gateway, "the gateway and the sweeps of one application share the sender")
      assert.notStrictEqual(yield* sharedIn(yield* processOn(url)), gateway, "another application's database, another sender")

      // Without a database (sequences in memory), the last user's scope closing forgets the sender and its stored nonce.
      const earlier = yield* Effect.scoped(ExecutorSender.shared(options))
      assert.notStrictEqual(yield* Effect.scoped(ExecutorSender.shared(options)), earlier)
    })))

  it.live("resync after a dropped transaction lowers the shared sequence: the next send fills the gap", () =>
    Effect.scoped(Effect.gen(function*() {
      const { node, url, first, client } = yield* world
      const dropper = yield* senderIn(first, client, node.chainId)
      const other = yield* senderIn(yield* processOn(url), client, node.chainId)
      yield* anvilCall(client, "evm_setAutomine", [false])
      const dropped = yield* dropper.send(request(dropper, 1))
      yield* anvilCall(client, "anvil_dropTransaction", [dropped])
      yield* dropper.resync
      yield* anvilCall(client, "evm_setAutomine", [true])
      const hash = yield* other.send(request(other, 2))
      assert.strictEqual(yield* nonceOf(client, hash), 0)
    })))

  it.live("a resync the database cannot store yet is applied by the process's next send", () =>
    Effect.scoped(Effect.gen(function*() {
      const { node, url, client } = yield* world
      const { proxy, process } = yield* behindProxy(url)
      const dropper = yield* senderIn(process, client, node.chainId)
      yield* anvilCall(client, "evm_setAutomine", [false])
      const dropped = yield* dropper.send(request(dropper, 1))
      yield* anvilCall(client, "anvil_dropTransaction", [dropped])
      proxy.cut()
      yield* dropper.resync
      proxy.restore()
      yield* anvilCall(client, "evm_setAutomine", [true])
      const hash = yield* dropper.send(request(dropper, 2)).pipe(untilReachable)
      assert.strictEqual(yield* nonceOf(client, hash), 0)
    })))
})
