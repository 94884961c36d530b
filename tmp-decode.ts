import { paymentFromRow } from "./packages/adapters/src/internal/PaymentRow.ts"
const row = { id: "pay_01M8GMPFQJ4N753J0AJ844BW06", partner_id: "ptn_ABC", merchant_id: "mer_ABC", mode: "sandbox", reference_id: "order-1", currency: "USD", value: "1250", status: "requires_action", state_version: 1, checkout: null, expires_at: "1800000000000", commitment: null, cancelled_reason: null, cancelled_at: null, created_at: "1700000000000", updated_at: "1700000000000" }
for (let r = 0; r < 3; r++) {
  const n = 200000
  const t = performance.now()
  for (let i = 0; i < n; i++) paymentFromRow(row)
  console.log("µs per decode", ((performance.now() - t) * 1000 / n).toFixed(2))
}
