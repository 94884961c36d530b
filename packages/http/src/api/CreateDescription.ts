/** What both payment-create operations document beyond their schema (OpenAPI description). */
export const createDescription = [
  "`amount.value` is an integer string in the currency's minor units (cents for USD: 10.50 USD is \"1050\"; whole units for a currency without one, e.g. JPY).",
  "A currency no configured token can be priced in is refused with `params_validation`.",
  "Redirects need both `checkout.successUrl` and `checkout.errorUrl` as HTTPS URLs; a sandbox payment also accepts `http://localhost` and `http://127.0.0.1` (any port and path), a live one never. When `checkout` is given and either is missing or not accepted, the payment is still created, without redirects (the checkout shows its own result pages), and the answer carries a `Paygate-Warning` header that says which URL was the problem (a replay of the answer does not repeat it)."
].join("\n\n")
