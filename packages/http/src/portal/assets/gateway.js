// @ts-check
/**
 * The gateway API as the pages call it: same origin, the portal's public `App-Id` with a
 * `Client-Id` drawn for this page load (API rules §2). Nothing is stored in the browser.
 *
 * @module
 */

/** A response of the gateway other than 2xx (`status` 0: the service could not be reached). */
export class GatewayError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message)
    this.name = "GatewayError"
    this.status = status
    this.code = code
  }
}

/**
 * @param {unknown} error
 * @returns {error is DOMException}
 */
export function isAbort(error) {
  return error instanceof DOMException && error.name === "AbortError"
}

/**
 * Sends a request to this service and answers its JSON (`null` for none); a non-2xx response
 * throws a {@link GatewayError} with the service's code and message (API rules §1), an unreachable
 * service one of status 0. `onResponse` sees every response first.
 *
 * @param {string} path
 * @param {RequestInit} init
 * @param {(response: Response) => void} [onResponse]
 * @returns {Promise<any>}
 */
export async function requestJson(path, init, onResponse) {
  /** @type {Response} */
  let response
  try {
    response = await fetch(path, { cache: "no-store", ...init })
  } catch (error) {
    if (isAbort(error)) throw error
    throw new GatewayError(0, "network", "The payment service could not be reached. Check your connection and try again.")
  }
  onResponse?.(response)
  const text = await response.text()
  /** @type {any} */
  let json = null
  try {
    json = text === "" ? null : JSON.parse(text)
  } catch {
    json = null
  }
  if (!response.ok) {
    const code = typeof json?.code === "string" ? json.code : "internal_error"
    const message = typeof json?.message === "string" ? json.message : `The payment service answered ${response.status}.`
    throw new GatewayError(response.status, code, message)
  }
  return json
}

/**
 * A client of the gateway operations of the pages.
 *
 * @param {{ appId: string, clientId: string }} credentials
 */
export function createGateway(credentials) {
  /** The service's clock minus this device's (ms), from the `Date` of the last response. */
  let clockOffsetMs = 0

  /**
   * @param {"GET" | "POST"} method
   * @param {string} path
   * @param {unknown} [body]
   * @param {AbortSignal} [signal]
   * @returns {Promise<any>}
   */
  function call(method, path, body, signal) {
    /** @type {Record<string, string>} */
    const headers = { "App-Id": credentials.appId, "Client-Id": credentials.clientId }
    if (body !== undefined) headers["Content-Type"] = "application/json"
    const init = { method, headers, body: body === undefined ? null : JSON.stringify(body), credentials: /** @type {const} */ ("omit"), signal: signal ?? null }
    return requestJson(path, init, (response) => {
      const date = Date.parse(response.headers.get("date") ?? "")
      if (Number.isFinite(date)) clockOffsetMs = date - Date.now()
    })
  }

  /** @param {string} id */
  const base = (id) => `/v1/gateway/payment/${encodeURIComponent(id)}`
  /** @param {string} id */
  const planBase = (id) => `/v1/gateway/plan/${encodeURIComponent(id)}`
  /** @param {string} id */
  const subscriptionBase = (id) => `/v1/gateway/subscription/${encodeURIComponent(id)}`

  return {
    /**
     * Unix seconds on the service's clock (as of its last response): deadlines it hands out
     * (`expiresAt`) are compared with this, so a device whose clock is off counts down right.
     */
    now: () => Math.floor((Date.now() + clockOffsetMs) / 1000),
    /** @param {string} id */
    payment: (id) => call("GET", base(id)),
    /**
     * Long poll: answers when the status changes or after `maxPollMs`.
     *
     * @param {string} id
     * @param {number} maxPollMs
     * @param {AbortSignal} [signal]
     */
    status: (id, maxPollMs, signal) => call("GET", `${base(id)}/status?maxPollMs=${maxPollMs}`, undefined, signal),
    /**
     * @param {string} id
     * @param {ReadonlyArray<string>} accounts
     * @param {{ refresh?: ReadonlyArray<string> | null, includePaymentInfo?: boolean }} [options]
     */
    options: (id, accounts, options = {}) =>
      call("POST", `${base(id)}/options?includePaymentInfo=${options.includePaymentInfo === true}`, {
        accounts,
        refresh: options.refresh ?? null
      }),
    /**
     * @param {string} id
     * @param {string} optionId
     * @param {string} data
     */
    fetchActions: (id, optionId, data) => call("POST", `${base(id)}/fetch`, { optionId, data }),
    /**
     * @param {string} id
     * @param {string} optionId
     * @param {ReadonlyArray<{ type: "walletRpc", data: ReadonlyArray<string> }>} results
     */
    confirm: (id, optionId, results) => call("POST", `${base(id)}/confirm`, { optionId, results, collectedData: null }),
    /** @param {string} id */
    cancel: (id) => call("POST", `${base(id)}/cancel`),
    /**
     * The payment's deposit options: an address of its own per network, to send the amount to
     * from an exchange or any wallet.
     *
     * @param {string} id
     */
    deposit: (id) => call("POST", `${base(id)}/deposit`, {}),
    /**
     * @param {string} id
     * @param {string} account
     * @param {Record<string, unknown>} data
     */
    collectData: (id, account, data) => call("POST", `${base(id)}/collect-data`, { account, data }),
    /**
     * A plan's checkout: its merchant, price, term and the tokens it takes now.
     *
     * @param {string} id
     */
    plan: (id) => call("GET", planBase(id)),
    /**
     * The plan's terms for the payer's account (CAIP-10) in `asset` (CAIP-19), with the permit to sign.
     *
     * @param {string} id
     * @param {string} payer
     * @param {string} asset
     */
    offer: (id, payer, asset) => call("POST", `${planBase(id)}/offer`, { payer, asset }),
    /**
     * @param {string} id
     * @param {string} offer
     * @param {string} signature
     */
    subscribe: (id, offer, signature) => call("POST", `${planBase(id)}/subscribe`, { offer, signature }),
    /**
     * The payer's view of a subscription, with the token of its manage link.
     *
     * @param {string} id
     * @param {string} token
     */
    subscription: (id, token) => call("GET", `${subscriptionBase(id)}?token=${encodeURIComponent(token)}`),
    /**
     * @param {string} id
     * @param {string} token
     */
    cancelSubscription: (id, token) => call("POST", `${subscriptionBase(id)}/cancel`, { token })
  }
}

/** @typedef {ReturnType<typeof createGateway>} Gateway */
