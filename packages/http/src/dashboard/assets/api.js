// @ts-check
/**
 * The partner API as the dashboard calls it: same origin, authenticated by the HttpOnly session
 * cookie (never an API key), every change carrying the session's `Csrf-Token` header. Errors are
 * the contract's `{code, message}` as a `GatewayError`; a 401 means the session ended (signed out
 * elsewhere, expired, or its key was revoked).
 *
 * @module
 */
import { randomId } from "./dom.js"
import { GatewayError, requestJson } from "./gateway.js"

/** @typedef {{ partnerId: string, partnerName: string, keyId: string, mode: "sandbox" | "live", csrfToken: string, expiresAt: number, member: { memberId: string, email: string, role: string } | null }} Session */

/**
 * A client; `onSignedOut` runs when a response says the session is gone.
 *
 * @param {{ onSignedOut: () => void }} hooks
 */
export function createApi(hooks) {
  let csrfToken = ""

  /**
   * @param {"GET" | "POST" | "PATCH" | "PUT" | "DELETE"} method
   * @param {string} path
   * @param {{ body?: unknown, headers?: Record<string, string>, signedOut?: boolean }} [options]
   * @returns {Promise<any>}
   */
  async function call(method, path, options = {}) {
    /** @type {Record<string, string>} */
    const headers = { ...options.headers }
    if (method !== "GET") headers["Csrf-Token"] = csrfToken
    if (options.body !== undefined) headers["Content-Type"] = "application/json"
    try {
      return await requestJson(path, { method, headers, body: options.body === undefined ? null : JSON.stringify(options.body), credentials: "same-origin" })
    } catch (error) {
      // Signing in with a wrong key is a 401 too: only an existing session can end.
      if (error instanceof GatewayError && error.status === 401 && options.signedOut !== true) hooks.onSignedOut()
      throw error
    }
  }

  /** @param {Record<string, string | ReadonlyArray<string> | null | undefined>} query */
  const search = (query) => {
    const params = new URLSearchParams()
    for (const [name, value] of Object.entries(query)) {
      if (value === null || value === undefined || value === "") continue
      for (const one of typeof value === "string" ? [value] : value) params.append(name, one)
    }
    const text = params.toString()
    return text === "" ? "" : `?${text}`
  }

  return {
    /**
     * @param {string} path
     * @param {Record<string, string | ReadonlyArray<string> | null | undefined>} [query]
     */
    get: (path, query = {}) => call("GET", `${path}${search(query)}`),
    /**
     * @param {string} path
     * @param {unknown} [body]
     * @param {Record<string, string>} [headers]
     */
    post: (path, body, headers) => call("POST", path, { body, ...(headers === undefined ? {} : { headers }) }),
    /** @param {string} path @param {unknown} body */
    patch: (path, body) => call("PATCH", path, { body }),
    /** @param {string} path @param {unknown} body */
    put: (path, body) => call("PUT", path, { body }),
    /** @param {string} path */
    remove: (path) => call("DELETE", path),
    /** The current session, or `null` when signed out. @returns {Promise<Session | null>} */
    session: async () => {
      try {
        const session = await call("GET", "/dashboard/session", { signedOut: true })
        csrfToken = session.csrfToken
        return session
      } catch (error) {
        if (error instanceof GatewayError && error.status === 401) return null
        throw error
      }
    },
    /** Exchanges the secret key for a session; the key is not kept. @param {string} apiKey @returns {Promise<Session>} */
    signIn: async (apiKey) => {
      const session = await call("POST", "/dashboard/session", { body: { apiKey }, signedOut: true })
      csrfToken = session.csrfToken
      return session
    },
    /** A team member's sign-in. @param {string} email @param {string} password @returns {Promise<Session>} */
    signInMember: async (email, password) => {
      const session = await call("POST", "/dashboard/session", { body: { email, password }, signedOut: true })
      csrfToken = session.csrfToken
      return session
    },
    /** Accepts an invitation with the new member's password. @param {string} token @param {string} password @returns {Promise<Session>} */
    acceptInvitation: async (token, password) => {
      const session = await call("POST", "/dashboard/invitation", { body: { token, password }, signedOut: true })
      csrfToken = session.csrfToken
      return session
    },
    signOut: async () => {
      await call("DELETE", "/dashboard/session", { signedOut: true })
      csrfToken = ""
    }
  }
}

/** @typedef {ReturnType<typeof createApi>} Api */

/**
 * A fresh `Idempotency-Key` for one create.
 *
 * @returns {Record<string, string>}
 */
export function idempotencyKey() {
  return { "Idempotency-Key": randomId() }
}
