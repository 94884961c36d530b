/**
 * One chain read through several RPC providers: a viem transport that asks every provider what
 * decides money (a block, a receipt, logs, a balance, a contract read, the head) and answers only
 * what a quorum of them answer alike; what decides nothing (gas prices, fee history, the pending
 * nonce, sending a signed transaction) goes to the fastest healthy provider, the next one on no answer.
 *
 * - The head (`eth_blockNumber`) is the highest block a quorum of providers have reached: a lagging
 *   provider cannot add confirmations, and a fast one alone cannot either.
 * - No quorum among the answers is a {@link QuorumDisagreement} naming the providers and what each
 *   answered: the caller's outcome is unknown (a payment stays `processing`) until they agree again.
 * - Fewer answers than the quorum (providers down) is an unavailable chain, as one silent provider is.
 *
 * Providers are named `rpc[i] host`: their URLs often carry an API key in the path or query.
 *
 * @module
 */
import { Redacted } from "effect"
import { custom, type EIP1193RequestFn, http, type Transport } from "viem"
import { classify } from "./RpcFailure.ts"

/** Several providers of one chain and how many must agree. */
export interface QuorumEndpoints {
  readonly urls: ReadonlyArray<Redacted.Redacted<string>>
  readonly quorum: number
}

/** No quorum of providers answered alike: `answers` says who answered what (shortened). */
export class QuorumDisagreement extends Error {
  readonly method: string
  readonly answers: ReadonlyArray<{ readonly provider: string; readonly answer: string }>
  constructor(method: string, answers: ReadonlyArray<{ readonly provider: string; readonly answer: string }>) {
    super(`RPC providers disagree on ${method}: ${answers.map((a) => `${a.provider} answered ${a.answer}`).join("; ")}`)
    this.name = "QuorumDisagreement"
    this.method = method
    this.answers = answers
  }
}

/** How a method's answer is settled. */
type Policy = "head" | "agree" | "known" | "fastest"

const agreed = new Set([
  "eth_chainId",
  "eth_getBlockByNumber",
  "eth_getBlockByHash",
  "eth_getTransactionReceipt",
  "eth_getLogs",
  "eth_call",
  "eth_getBalance",
  "eth_getCode",
  "eth_getStorageAt",
  "eth_getTransactionCount"
])

const blockTags = new Set(["pending", "latest", "safe", "finalized", "earliest"])

const policyOf = (method: string, params: ReadonlyArray<unknown>): Policy => {
  if (method === "eth_blockNumber") return "head"
  // The transaction a hash names is the same everywhere; any provider that has it (mined or pooled) knows it.
  if (method === "eth_getTransactionByHash") return "known"
  if (!agreed.has(method)) return "fastest"
  // A pending state is each node's own pool; the latest block (fee estimation) differs by a block or two.
  if (params.includes("pending")) return "fastest"
  if (method === "eth_getBlockByNumber" && typeof params[0] === "string" && blockTags.has(params[0])) return "fastest"
  return "agree"
}

/** One provider as the transport tracks it. */
interface Provider {
  readonly name: string
  readonly request: (args: { readonly method: string; readonly params?: unknown }) => Promise<unknown>
  /** Smoothed answer time; the fastest healthy provider serves reads that need no agreement. */
  latencyMs: number
  /** Until when (epoch ms) it counts as unhealthy: it did not answer, or answered against the quorum. */
  unhealthyUntil: number
}

/** How long a provider that failed or dissented is passed over for reads that need no agreement. */
const penaltyMs = 30_000
/** After a quorum of heads has arrived, how long the others may still raise it. */
const headGraceMs = 250

/** JSON with sorted keys: two nodes may order an object's fields differently. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v) ?? "undefined"

/** What a log line says of an answer: a block's or a receipt's block hash, how many logs, or the value shortened. */
const summary = (value: unknown): string => {
  if (Array.isArray(value)) return `${value.length} log(s)`
  if (value !== null && typeof value === "object") {
    const { blockHash, hash, number } = value as { readonly blockHash?: unknown; readonly hash?: unknown; readonly number?: unknown }
    if (typeof blockHash === "string") return `a receipt in block ${blockHash}`
    if (typeof hash === "string") return `block ${String(number)} ${hash}`
  }
  const text = JSON.stringify(value) ?? "undefined"
  return text.length > 80 ? `${text.slice(0, 77)}…` : text
}

/** An answer of one provider: a result, a node's error (which counts as an answer), or none. */
type Answer =
  | { readonly _tag: "result"; readonly value: unknown; readonly key: string }
  | { readonly _tag: "error"; readonly error: unknown; readonly key: string }
  | { readonly _tag: "none"; readonly error: unknown }

const nameOf = (url: string, index: number) => `rpc[${index}] ${URL.parse(url)?.host ?? "?"}`

/** The quorum transport over `endpoints`; `timeout` bounds each provider's request. */
export const quorumTransport = (endpoints: QuorumEndpoints, timeout: number): Transport => {
  const providers: Array<Provider> = endpoints.urls.map((url, index) => ({
    name: nameOf(Redacted.value(url), index),
    request: http(Redacted.value(url), { timeout, retryCount: 0, batch: { wait: 0 } })({ retryCount: 0 }).request as Provider["request"],
    latencyMs: 0,
    unhealthyUntil: 0
  }))
  const ask = async (provider: Provider, method: string, params: unknown): Promise<Answer> => {
    const started = Date.now()
    try {
      const value = await provider.request({ method, params })
      provider.latencyMs = provider.latencyMs * 0.7 + (Date.now() - started) * 0.3
      return { _tag: "result", value, key: canonical(value) }
    } catch (error) {
      if (classify(error) !== "unavailable") return { _tag: "error", error, key: `error ${classify(error)} ${String((error as { code?: unknown }).code)}` }
      provider.unhealthyUntil = Date.now() + penaltyMs
      return { _tag: "none", error }
    }
  }
  const ranked = () => {
    const now = Date.now()
    return [...providers].sort((a, b) =>
      Number(a.unhealthyUntil > now) - Number(b.unhealthyUntil > now) || a.latencyMs - b.latencyMs
    )
  }
  const settle = (answer: Answer) => {
    if (answer._tag === "result") return answer.value
    throw answer.error
  }

  /** Every provider asked at once; `done` says, after each answer, whether what came in is enough. */
  const gather = (method: string, params: unknown, done: (answers: ReadonlyMap<Provider, Answer>) => boolean) =>
    new Promise<ReadonlyMap<Provider, Answer>>((resolve) => {
      const answers = new Map<Provider, Answer>()
      let finished = false
      const finish = () => {
        if (!finished) {
          finished = true
          resolve(new Map(answers))
        }
      }
      for (const provider of providers) {
        void ask(provider, method, params).then((answer) => {
          answers.set(provider, answer)
          if (answers.size === providers.length || done(answers)) finish()
        })
      }
    })

  const unavailable = (answers: ReadonlyMap<Provider, Answer>): never => {
    const silent = [...answers.values()].find((a) => a._tag === "none")
    throw silent?._tag === "none" ? silent.error : new Error("no RPC provider answered")
  }

  const head = async (method: string, params: unknown) => {
    let graceStarted = false
    const answers = await new Promise<ReadonlyMap<Provider, Answer>>((resolve) => {
      void gather(method, params, (sofar) => {
        const heads = [...sofar.values()].filter((a) => a._tag === "result").length
        if (heads >= endpoints.quorum && !graceStarted) {
          graceStarted = true
          setTimeout(() => resolve(new Map(sofar)), headGraceMs)
        }
        return false
      }).then(resolve)
    })
    const heads = [...answers.values()].flatMap((a) => (a._tag === "result" ? [BigInt(a.value as string)] : []))
      .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))
    if (heads.length < endpoints.quorum) return unavailable(answers)
    return `0x${heads[endpoints.quorum - 1]!.toString(16)}`
  }

  const agree = async (method: string, params: unknown) => {
    const tally = (answers: ReadonlyMap<Provider, Answer>) => {
      const counts = new Map<string, Array<Provider>>()
      for (const [provider, answer] of answers) {
        if (answer._tag === "none") continue
        counts.set(answer.key, [...(counts.get(answer.key) ?? []), provider])
      }
      return [...counts.entries()].find(([, agreeing]) => agreeing.length >= endpoints.quorum)
    }
    const answers = await gather(method, params, (sofar) => tally(sofar) !== undefined)
    const winner = tally(answers)
    if (winner !== undefined) {
      const [key, agreeing] = winner
      for (const [provider, answer] of answers) {
        if (answer._tag !== "none" && answer.key !== key) provider.unhealthyUntil = Date.now() + penaltyMs
      }
      return settle(answers.get(agreeing[0]!)!)
    }
    const answered = [...answers].filter(([, a]) => a._tag !== "none")
    if (answered.length < endpoints.quorum) return unavailable(answers)
    throw new QuorumDisagreement(
      method,
      [...answers].map(([provider, a]) => ({
        provider: provider.name,
        answer: a._tag === "none" ? "nothing" : a._tag === "error" ? a.key : summary(a.value)
      }))
    )
  }

  const known = async (method: string, params: unknown) => {
    const answers = await gather(method, params, (sofar) => [...sofar.values()].some((a) => a._tag === "result" && a.value !== null))
    const found = [...answers.values()].find((a) => a._tag === "result" && a.value !== null)
    if (found !== undefined) return settle(found)
    const answered = [...answers.values()].find((a) => a._tag !== "none")
    return answered === undefined ? unavailable(answers) : settle(answered)
  }

  const fastest = async (method: string, params: unknown) => {
    let last: Answer | undefined
    for (const provider of ranked()) {
      last = await ask(provider, method, params)
      if (last._tag !== "none") return settle(last)
    }
    return settle(last!)
  }

  const request = (async ({ method, params }: { readonly method: string; readonly params?: unknown }) => {
    const list = Array.isArray(params) ? params : []
    switch (policyOf(method, list)) {
      case "head":
        return head(method, params)
      case "agree":
        return agree(method, params)
      case "known":
        return known(method, params)
      case "fastest":
        return fastest(method, params)
    }
  }) as EIP1193RequestFn

  return custom({ request }, { key: "quorum", name: "RPC quorum", retryCount: 0 })
}
