/**
 * What tests read of a payment through the partner API while the worker moves it: its record, its
 * status once it becomes one, its receipts, and the receipt of one transaction once recorded.
 */
import { eventually } from "./Eventually.ts"
import type { TestServer } from "./TestServer.ts"

/** The reads over `server` with `apiKey` (a partner's secret key), waiting up to `withinMs`. */
export const paymentReads = (server: Pick<TestServer, "request">, apiKey: () => string, withinMs = 45_000) => {
  const api = (path: string) => server.request("GET", path, { apiKey: apiKey() })
  const record = async (paymentId: string) => (await api(`/v1/payments/${paymentId}`)).body
  const receipts = async (paymentId: string) => (await api(`/v1/receipts?paymentId=${paymentId}`)).body.data as Array<any>
  return {
    record,
    receipts,
    statusBecomes: (paymentId: string, status: string) => eventually(() => record(paymentId), (r) => r.status === status, withinMs),
    /** The receipt of transaction `hash` against the payment, once recorded. */
    receiptOf: (paymentId: string, hash: string) =>
      eventually(() => receipts(paymentId), (list) => list.some((r) => r.txHash === hash.toLowerCase()), withinMs).then((list) =>
        list.find((r) => r.txHash === hash.toLowerCase())
      )
  }
}
