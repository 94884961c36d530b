/**
 * What the wallet scripts (`pay`, `subscribe`) share: the paying account from `--key`, the service's
 * address from `--url`, and JSON calls to the service whose every failure is one line on stderr.
 */
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { fail } from "./CommandLine.ts"

/** The account of `--key`. */
export const accountOf = (key: string) => {
  try {
    return privateKeyToAccount(key as Hex)
  } catch {
    return fail("--key must be a private key: 0x followed by 64 hex digits", 2)
  }
}

/** `--url` without its trailing slash. */
export const serviceUrl = (text: string) => {
  try {
    return new URL(text).href.replace(/\/$/, "")
  } catch {
    return fail(`--url ${JSON.stringify(text)} is not a URL (e.g. http://localhost:3000)`, 2)
  }
}

/**
 * Calls the service at `baseUrl` under `prefix` with `headers`; answers the JSON of a 2xx, else stops
 * with `METHOD path → status code: message` (the path as the caller named it).
 */
export const serviceCaller = (baseUrl: string, headers: Record<string, string>, prefix = "") =>
async (method: string, path: string, body?: unknown): Promise<any> => {
  let response: Response
  try {
    response = await fetch(`${baseUrl}${prefix}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message
    return fail(`Cannot reach ${baseUrl} (${cause}): is the service running? (--url)`)
  }
  const answer = await response.text()
  let json: any
  try {
    json = JSON.parse(answer)
  } catch {
    return fail(`${method} ${path} → ${response.status}, not a paygate answer: ${answer.slice(0, 120)}`)
  }
  if (!response.ok) return fail(`${method} ${path} → ${response.status} ${json.code}: ${json.message}`)
  return json
}
