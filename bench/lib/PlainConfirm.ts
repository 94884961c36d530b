/**
 * The gateway confirm written plainly (`node:http` + node-postgres, no framework, no Effect), served
 * by the raw baseline (`baseline.ts`, `POST /plain/gateway/payment/:id/confirm`): what the service's
 * confirm of an EIP-3009 pull option costs without its framework, measured against it by the
 * `confirms.plain` load (`bench/confirms.ts`).
 *
 * Per confirm, as the service does (`GatewayCredential`, `ConfirmRequests`, `Confirmations`,
 * `VerifyAuthorization`, `SqlPaymentRepository`), with the service's statements in its order:
 * - the credential headers checked for ASCII; a wallet key (`wk_…`) required, its SHA-256 looked up
 *   with its partner (the service's statement; found keys cached for 10 s, as its credential cache)
 *   and compared in constant time; revoked and partner keys refused;
 * - the body parsed and checked as the service's schema does (fields, types, no unknown field,
 *   well-formed text); the option id's HMAC-SHA256 verified in constant time and its claims checked
 *   (this payment, a pull option of a configured EIP-3009 asset); the wallet's answer's shape;
 * - the payment read (the service's `SELECT … WHERE id = ANY($1)`) and its mode checked; a repeat of
 *   the accepted confirm (same fingerprint) answered as it stands, another refused; expired or not
 *   waiting refused; the asset's network mode against the payment's; the sanctions list (empty, as
 *   the bench's service runs); the partner's data collection threshold read (the service's
 *   statement) and, above it, the buyer data read; the latest quote of (payment, account, asset)
 *   and the newest of (payment, asset) read and compared (the service's statements);
 * - the authorization checked: account on the asset's chain, recipient the collection address,
 *   value in range, `validBefore` not passed, 32-byte nonce, low-s 65-byte signature; the EIP-712
 *   digest hashed with viem (`hashTypedData`) and the signer recovered on a worker thread, as the
 *   service recovers (its own worker, `SignatureRecoveryWorker.ts`, one thread as on 2 cores);
 * - the payment decided again as read (read again only after a lost race, as the service's
 *   compare-and-set loop does), then one statement, as the service's: `UPDATE payments` (compare-and-set on `state_version`, the
 *   commitment as the service encodes it: this also queues the executor's work, due now) and, if it
 *   changed the row, the `payment.processing` outbox event (the service's payload); the answer the
 *   service gives.
 *
 * Not done: the service's per-request log line, metrics and rate limiter (the raw baseline has none),
 * EIP-1271 contract wallets (a signature that recovers to another key is refused without asking the
 * chain; the bench's buyers are plain accounts), buyer data sent with the confirm (refused: the bench
 * sends none), push and Permit2 options (the bench confirms EIP-3009 pulls). No executor runs here.
 *
 * Configuration (environment): `OPTION_ID_SECRET` (base64, the service's), `PLAIN_CONFIRM_CHAIN`
 * (JSON {@link ChainSettings}, what the service reads from its chain configuration and caches).
 */
import { keccak_256 } from "@noble/hashes/sha3"
import { bytesToHex } from "@noble/hashes/utils"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Worker } from "node:worker_threads"
import type pg from "pg"
import { type Address, getAddress, type Hex, hashTypedData, isAddress } from "viem"
import { transferWithAuthorizationTypes } from "../../packages/adapters/src/chain/Eip3009.ts"
import { recoveryWorkerData, type RecoveryResponse } from "../../packages/adapters/src/chain/SignatureRecoveryWorker.ts"
import { newId } from "./rows.ts"

/** The chain settings the plain confirm checks against: one EIP-3009 asset on one chain. */
export interface ChainSettings {
  /** CAIP-19 of the accepted asset. */
  readonly assetId: string
  readonly collectionAddress: string
  /** The token's EIP-712 domain. */
  readonly domain: { readonly name: string; readonly version: string; readonly chainId: number; readonly verifyingContract: string }
  /** The mode the asset's network serves (a testnet: `sandbox`). */
  readonly mode: string
}

type Query = (client: pg.Pool | pg.PoolClient, name: string, text: string, values: ReadonlyArray<unknown>) => Promise<pg.QueryResult>
type Send = (response: ServerResponse, status: number, value: unknown) => void

class Refusal extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}
const refuse = (status: number, code: string, message: string): never => {
  throw new Refusal(status, code, message)
}
const invalid = (message: string) => refuse(400, "params_validation", message)
const foreign = () => refuse(400, "invalid_params", "The option id is not one this service issued for this payment.")

const printableAscii = /^[\x20-\x7e]*$/
const checkedHeaders = ["api-key", "merchant-id", "app-id", "client-id", "svc-version", "idempotency-key", "csrf-token"]
const wellFormed = (text: string) => text.isWellFormed() && !text.includes("\0")
const maxBody = 64 * 1024
const cacheMillis = 10_000
const keyShape = /^(sk|wk)_(live|test)_[A-Za-z0-9_-]{16,}$/
const maxUint256 = 2n ** 256n - 1n
const halfOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

const keySelect = `SELECT k.id, k.kind, k.mode, k.partner_id AS key_partner_id, k.app_id, k.revoked_at, k.secret_sha256,
  p.id AS partner_id, p.name AS partner_name, p.pinned_version AS partner_pinned_version, p.created_at AS partner_created_at
  FROM api_keys k LEFT JOIN partners p ON p.id = k.partner_id WHERE k.secret_sha256 = $1`
const paymentSelect = `SELECT id, partner_id, merchant_id, mode, reference_id, currency, value::text AS value, status, state_version, checkout,
  expires_at, commitment, cancelled_reason, cancelled_at, created_at, updated_at, link_id FROM payments WHERE id = ANY($1::text[])`
const latestQuote = `SELECT option_id, claims FROM quotes WHERE payment_id = $1 AND account = $2 AND asset = $3 ORDER BY created_at DESC, seq DESC LIMIT 1`
const newestQuote = `SELECT option_id, claims FROM quotes WHERE payment_id = $1 AND asset = $2 ORDER BY created_at DESC, seq DESC LIMIT 1`
const thresholdSelect = `SELECT data_collection_threshold::text AS threshold FROM partners WHERE id = $1`
const buyerDataSelect = `SELECT account FROM buyer_data WHERE payment_id = $1`
// The service's compare-and-set with its outbox event, one statement: the event only if the row changed.
const compareAndSet = `WITH changed AS (UPDATE payments SET status = $2, state_version = $3, checkout = $4::jsonb, expires_at = $5,
  commitment = $6::jsonb, cancelled_reason = $7, cancelled_at = $8::bigint, updated_at = $9 WHERE id = $1 AND state_version = $10 RETURNING id)
  INSERT INTO outbox_events (id, type, partner_id, payment_id, payload, created_at)
  SELECT e.id, e.type, e.partner_id, e.payment_id, e.payload, e.created_at
  FROM changed, (VALUES ($11, $12, $13, $14, $15::jsonb, $16::bigint)) AS e (id, type, partner_id, payment_id, payload, created_at)
  RETURNING id`

interface Claims {
  readonly paymentId: string
  readonly account: string
  readonly asset: string
  readonly value: string
  readonly expiresAt: number | null
  readonly kind: string
  readonly nonce: string
  readonly quotedAt: number
}
const isClaims = (v: any): v is Claims =>
  v !== null && typeof v === "object" && Object.keys(v).length === 8 && typeof v.paymentId === "string" &&
  typeof v.account === "string" && typeof v.asset === "string" && typeof v.value === "string" &&
  (v.expiresAt === null || Number.isSafeInteger(v.expiresAt)) && ["pull", "push", "deposit"].includes(v.kind) &&
  typeof v.nonce === "string" && Number.isSafeInteger(v.quotedAt)

/** The body as the service's `ConfirmRequest` schema accepts it (unknown fields refused). */
const confirmationOf = (text: string) => {
  let body: any
  try {
    body = JSON.parse(text)
  } catch {
    return refuse(400, "invalid_params", "The request body is not JSON.")
  }
  const isObject = (v: unknown): v is Record<string, any> => v !== null && typeof v === "object" && !Array.isArray(v)
  const only = (v: Record<string, unknown>, keys: ReadonlyArray<string>) => Object.keys(v).every((k) => keys.includes(k))
  if (!isObject(body) || !only(body, ["optionId", "results", "collectedData"])) return invalid("Invalid request body.")
  if (typeof body.optionId !== "string" || body.optionId.length > 65_536 || !Array.isArray(body.results)) return invalid("Invalid request body.")
  for (const result of body.results) {
    if (!isObject(result) || !only(result, ["type", "data"]) || result.type !== "walletRpc" || !Array.isArray(result.data)) return invalid("Invalid results.")
    if (!result.data.every((d: unknown) => typeof d === "string" && wellFormed(d))) return invalid("Invalid results.")
  }
  if (!wellFormed(body.optionId)) return invalid("Invalid optionId.")
  if (body.collectedData !== undefined && body.collectedData !== null) {
    return invalid("Buyer data sent with the confirm is not stored by the plain pipeline.")
  }
  return { optionId: body.optionId as string, results: body.results as ReadonlyArray<{ readonly data: ReadonlyArray<string> }> }
}

const base64Url = (text: string) => (/^[A-Za-z0-9_-]+$/.test(text) ? Buffer.from(text, "base64url") : undefined)

/** The signer recovery on one worker thread, the service's worker script and protocol. */
const recoveryPool = () => {
  const worker = new Worker(new URL("../../packages/adapters/src/chain/SignatureRecoveryWorker.ts", import.meta.url), {
    resourceLimits: { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 64 },
    workerData: recoveryWorkerData
  })
  worker.unref()
  const waiting = new Map<number, (address: Address | null) => void>()
  let next = 0
  worker.on("message", (response: RecoveryResponse) => {
    waiting.get(response.id)?.(response.address)
    waiting.delete(response.id)
  })
  return (hash: Hex, signature: Hex) =>
    new Promise<Address | null>((resolve) => {
      const id = next++
      waiting.set(id, resolve)
      worker.postMessage({ id, hash, signature })
    })
}

/** `POST /plain/gateway/payment/:id/confirm` over `pool`; see the module documentation. */
export const plainConfirm = (pool: pg.Pool, query: Query, send: Send) => {
  const secret = Buffer.from(process.env.OPTION_ID_SECRET ?? "", "base64")
  const chain = JSON.parse(process.env.PLAIN_CONFIRM_CHAIN ?? "null") as ChainSettings | null
  const recover = recoveryPool()
  const keys = new Map<string, { readonly row: any; readonly until: number }>()

  const authenticate = async (request: IncomingMessage) => {
    for (const name of checkedHeaders) {
      const value = request.headers[name]
      if (typeof value === "string" && !printableAscii.test(value)) refuse(400, "header_not_ascii", `${name} must be ASCII.`)
    }
    const apiKey = request.headers["api-key"]
    if (typeof apiKey !== "string") return refuse(401, "missing_auth_headers", "Send a wallet Api-Key, or App-Id with Client-Id.")
    const kind = keyShape.exec(apiKey)?.[1]
    if (kind === "sk") refuse(401, "unauthorized", "Partner secret keys are for servers.")
    const digest = createHash("sha256").update(apiKey, "utf8").digest("hex")
    const now = Date.now()
    let cached = kind === "wk" ? keys.get(digest) : undefined
    if (kind === "wk" && (cached === undefined || cached.until <= now)) {
      const { rows: [row] } = await query(pool, "plain-key", keySelect, [digest])
      cached = row === undefined ? undefined : { row, until: now + cacheMillis }
      if (cached !== undefined) keys.set(digest, cached)
    }
    const key = cached?.row
    if (key === undefined || key.revoked_at !== null || key.kind !== "wallet" || !timingSafeEqual(Buffer.from(key.secret_sha256, "hex"), Buffer.from(digest, "hex"))) {
      return refuse(401, "invalid_api_key", "The API key is not valid.")
    }
    return { mode: key.mode as string, walletName: typeof request.headers["sdk-name"] === "string" ? request.headers["sdk-name"] : "Unknown wallet" }
  }

  const claimsOf = (optionId: string): Claims => {
    const [version, body, tagText, ...rest] = optionId.split(".")
    const tag = tagText === undefined ? undefined : base64Url(tagText)
    if (version !== "opt1" || body === undefined || tag === undefined || rest.length > 0) return foreign()
    const expected = createHmac("sha256", secret).update(`opt1.${body}`).digest()
    const json = base64Url(body)
    if (tag.length !== expected.length || !timingSafeEqual(tag, expected) || json === undefined) return foreign()
    try {
      const claims = JSON.parse(json.toString("utf8"))
      return isClaims(claims) ? claims : foreign()
    } catch {
      return foreign()
    }
  }

  const readPayment = async (id: string, mode: string) => {
    const { rows: [row] } = wellFormed(id) ? await query(pool, "plain-payment", paymentSelect, [[id]]) : { rows: [] }
    return row === undefined || row.mode !== mode ? refuse(404, "payment_not_found", `No payment ${id}.`) : row
  }

  // A payment that is no longer waiting for the buyer, or a confirm with another option, is refused.
  const decide = (row: any, fingerprint: string, nowSeconds: number) => {
    if (row.commitment !== null) {
      if (row.commitment.fingerprint === fingerprint) return "repeat" as const
      return refuse(409, "invalid_state", `Payment ${row.id} was already confirmed with another option.`)
    }
    if (row.status === "requires_action" && nowSeconds >= Math.floor(Number(row.expires_at) / 1000)) refuse(410, "payment_expired", `Payment ${row.id} has expired.`)
    if (row.status !== "requires_action") refuse(409, "invalid_state", `Payment ${row.id} is ${row.status}.`)
    return "change" as const
  }

  const verify = async (claims: Claims, validBefore: number, signature: string) => {
    const [namespace, reference, address] = claims.account.split(":")
    if (namespace !== "eip155" || address === undefined || !isAddress(address, { strict: false })) invalid("The option's account is not a CAIP-10 account id.")
    if (`${namespace}:${reference}` !== chain!.assetId.split("/")[0]) invalid("The option's account is not on the asset's chain.")
    const value = BigInt(claims.value)
    if (value <= 0n || value > maxUint256) invalid("The authorization's value is out of range.")
    if (!Number.isSafeInteger(validBefore) || validBefore <= Math.floor(Date.now() / 1000)) invalid("The authorization has expired (validBefore has passed).")
    if (!/^0x[0-9a-fA-F]{64}$/.test(claims.nonce)) invalid("The authorization's nonce is not 32 bytes of hex.")
    if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) invalid("The signature is not a 65-byte signature.")
    const v = Number.parseInt(signature.slice(130), 16)
    const recovery = v === 0 || v === 27 ? 27 : v === 1 || v === 28 ? 28 : invalid("The signature has a recovery id (v) other than 27 or 28.")
    if (BigInt(`0x${signature.slice(66, 130)}`) > halfOrder) invalid("The signature is not in canonical low-s form.")
    const payer = getAddress(address!)
    const hash = hashTypedData({
      domain: { ...chain!.domain, verifyingContract: chain!.domain.verifyingContract as Address },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: { from: payer, to: chain!.collectionAddress as Address, value, validAfter: 0n, validBefore: BigInt(validBefore), nonce: claims.nonce as Hex }
    })
    const signer = await recover(hash, `${signature.slice(0, 130)}${recovery.toString(16)}` as Hex)
    if (signer === null || signer.toLowerCase() !== payer.toLowerCase()) invalid("The signature was not made by the option's account.")
  }

  // The payment's canonical JSON, as the service encodes it (schema order; amounts as text, times in seconds but for creation and update).
  const paymentJson = (row: any, changed: Record<string, unknown>) => {
    const seconds = (millis: unknown) => (millis === null ? null : Math.floor(Number(millis) / 1000))
    const { cancelled_at, cancelled_reason, checkout, currency, expires_at, id, link_id, merchant_id, mode, partner_id, reference_id, value } = row
    return {
      id, partnerId: partner_id, merchantId: merchant_id, mode, referenceId: reference_id, currency, value,
      status: changed.status, stateVersion: changed.stateVersion, checkout, expiresAt: seconds(expires_at), commitment: changed.commitment,
      cancelledReason: cancelled_reason, cancelledAt: seconds(cancelled_at), createdAt: Number(row.created_at), updatedAt: changed.updatedAt,
      ...(link_id === null ? {} : { linkId: link_id })
    }
  }

  const write = async (row: any, commitment: Record<string, unknown>) => {
    const millis = Date.now()
    const next = { status: "processing", stateVersion: row.state_version + 1, commitment, updatedAt: Math.max(millis, Number(row.updated_at)) }
    const payment = paymentJson(row, next)
    const eventId = newId("evt")
    const createdAt = Math.floor(next.updatedAt / 1000)
    const stage = { account: commitment.account, asset: commitment.asset, amount: commitment.tokenAmount }
    const event = { id: eventId, type: "payment.processing", partnerId: row.partner_id, paymentId: row.id, payment, stage, createdAt }
    try {
      const { rows } = await query(pool, "plain-cas", compareAndSet, [
        row.id, next.status, next.stateVersion, row.checkout === null ? null : JSON.stringify(row.checkout), row.expires_at,
        JSON.stringify(commitment), row.cancelled_reason, row.cancelled_at, next.updatedAt, row.state_version,
        eventId, event.type, row.partner_id, row.id, JSON.stringify(event), createdAt * 1000
      ])
      return rows.length > 0
    } catch (error) {
      if ((error as { code?: string }).code === "23505") invalid("This authorization or transaction already paid for another payment; it cannot be used again.")
      throw error
    }
  }

  const answer = { status: "processing", isFinal: false, pollInMs: 1000, info: null }

  const confirm = async (request: IncomingMessage, pathId: string) => {
    const id = pathIdOf(pathId)
    const text = await readLimited(request)
    const caller = await authenticate(request)
    const confirmation = confirmationOf(text)
    const claims = claimsOf(confirmation.optionId)
    if (claims.paymentId !== id) foreign()
    if (claims.kind === "deposit") invalid("A deposit option is paid by a transfer to its address; there is nothing to confirm.")
    if (chain === null || claims.asset !== chain.assetId || claims.kind !== "pull") invalid("This option is no longer offered; ask for options again.")
    const results = confirmation.results
    if (results.length !== 1 || results[0]!.data.length !== 1) invalid("results must hold one walletRpc result with the eth_signTypedData_v4 signature.")
    const signature = results[0]!.data[0]!
    if (!/^0x[0-9a-fA-F]+$/.test(signature)) invalid("results[0].data[0] must be the eth_signTypedData_v4 signature (0x hex).")
    const fingerprint = `0x${bytesToHex(keccak_256(new TextEncoder().encode(JSON.stringify([
      claims.paymentId, claims.account.toLowerCase(), claims.asset.toLowerCase(), claims.value, claims.expiresAt, claims.kind,
      claims.nonce.toLowerCase(), claims.quotedAt, signature.toLowerCase()
    ]))))}`

    const current = await readPayment(id, caller.mode)
    const now = Math.floor(Date.now() / 1000)
    if (decide(current, fingerprint, now) === "repeat") return answer
    if (claims.expiresAt !== null && now >= claims.expiresAt) refuse(400, "quote_expired", "The option's quote has expired; fetch the options again.")
    if (chain!.mode !== current.mode) invalid(`This option is not on a network of the payment's mode.`)
    // The sanctions list: empty, as the bench's service runs (`SANCTIONS_FILE` unset).
    const { rows: [partner] } = await query(pool, "plain-threshold", thresholdSelect, [current.partner_id])
    if (reachesThreshold(BigInt(current.value), partner?.threshold ?? "1000.00")) {
      const { rows } = await query(pool, "plain-buyer-data", buyerDataSelect, [id])
      if (!rows.some((r) => r.account === claims.account)) invalid("Buyer data is required for this payment.")
    }
    const superseded = () => refuse(400, "quote_expired", "A newer quote replaced this option's; fetch the options again and confirm the latest.")
    const { rows: [latest] } = await query(pool, "plain-latest", latestQuote, [id, claims.account, claims.asset])
    if (latest === undefined || latest.claims.nonce !== claims.nonce) superseded()
    const { rows: [newest] } = await query(pool, "plain-newest", newestQuote, [id, claims.asset])
    if (newest !== undefined && BigInt(newest.claims.value) > BigInt(claims.value)) superseded()
    const validBefore = claims.expiresAt ?? Math.floor(Number(current.expires_at) / 1000)
    await verify(claims, validBefore, signature)
    const commitment = {
      kind: "pull",
      account: claims.account,
      asset: claims.asset,
      tokenAmount: claims.value,
      fingerprint,
      txHash: null,
      authorization: { to: chain!.collectionAddress, validBefore, nonce: claims.nonce.toLowerCase(), signature },
      reference: null,
      walletName: caller.walletName,
      confirmedAt: now
    }
    // As the service: decide again on the payment as read, compare-and-set; on a lost race, read it again and retry.
    for (let attempt = 1; attempt <= 5; attempt++) {
      const latestRow = attempt === 1 ? current : await readPayment(id, caller.mode)
      if (decide(latestRow, fingerprint, Math.floor(Date.now() / 1000)) === "repeat") return answer
      if (await write(latestRow, commitment)) return answer
    }
    throw new Error(`payment ${id} kept changing under us`)
  }

  return (request: IncomingMessage, response: ServerResponse, id: string) =>
    confirm(request, id).then(
      (body) => send(response, 200, body),
      (error: unknown) => {
        if (!(error instanceof Refusal)) throw error
        send(response, error.status, { code: error.code, message: error.message })
      }
    )
}

/** The path's payment id; one that is not well-formed UTF-8 names no payment (the service's not-found). */
const pathIdOf = (raw: string) => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return refuse(404, "payment_not_found", "No such payment.")
  }
}

/** The body as text, refused beyond 64 KiB (the service's limit). */
const readLimited = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => {
      body += chunk
      if (body.length > maxBody) reject(new Refusal(413, "payload_too_large", "The request body is too large."))
    })
    request.on("end", () => resolve(body))
    request.on("error", reject)
  })

/** Whether `value` minor units (2 decimals) reach `threshold` (a plain decimal in major units), exactly. */
const reachesThreshold = (value: bigint, threshold: string) => {
  const [integer = "1000", fraction = ""] = /^\d+(\.\d+)?$/.test(threshold) ? threshold.split(".") : ["1000"]
  return value * 10n ** BigInt(fraction.length) >= BigInt(integer + fraction) * 100n
}
