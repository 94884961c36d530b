/**
 * OpenAPI documentation of the three authentication modes (API rules §2). The pipeline checks the
 * headers itself (in the contract's order, with its error codes), so the schemes are added to the
 * generated document rather than declared as HttpApi security middleware.
 */
const schemes = {
  PartnerApiKey: { type: "apiKey", in: "header", name: "Api-Key", description: "Partner secret key (sk_live_… / sk_test_…). Server side only." },
  MerchantId: { type: "apiKey", in: "header", name: "Merchant-Id", description: "The merchant a Merchant API or x402 facilitator request acts for." },
  WalletApiKey: { type: "apiKey", in: "header", name: "Api-Key", description: "Wallet key (wk_live_… / wk_test_…)." },
  AppId: { type: "apiKey", in: "header", name: "App-Id", description: "Public app id (app_…); requires Client-Id." },
  ClientId: { type: "apiKey", in: "header", name: "Client-Id", description: "Any non-empty ASCII client identifier." },
  DashboardSession: {
    type: "apiKey",
    in: "cookie",
    name: "paygate_session",
    description: "A dashboard session (POST /dashboard/session), used when no Api-Key is sent; a change needs the session's Csrf-Token header."
  }
} as const

const requirementFor = (path: string): Array<Record<string, Array<never>>> => {
  // The x402 facilitator acts for a merchant like the Merchant API does.
  if (path.startsWith("/v1/merchant/") || path.startsWith("/x402/")) return [{ PartnerApiKey: [], MerchantId: [] }]
  if (path.startsWith("/v1/gateway/")) return [{ WalletApiKey: [] }, { AppId: [], ClientId: [] }]
  if (path.startsWith("/v1/")) return [{ PartnerApiKey: [] }, { DashboardSession: [] }]
  return []
}

/** Adds the security schemes and each operation's requirement to a generated OpenAPI document. */
export const documentSecurity = (spec: Record<string, any>): Record<string, any> => {
  const paths = Object.fromEntries(
    Object.entries(spec.paths ?? {}).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations as Record<string, Record<string, unknown>>).map(([method, operation]) => [
          method,
          { ...operation, security: requirementFor(path) }
        ])
      )
    ])
  )
  return { ...spec, paths, components: { ...spec.components, securitySchemes: schemes } }
}
