import { OpenApi } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { PaygateApi } from "../src/index.ts"

const spec = OpenApi.fromApi(PaygateApi) as any

/** Every partner operation with the statuses its errors answer with (besides the pipeline's 400/401/403/409/429/500). */
const operations: ReadonlyArray<readonly [method: string, path: string, success: string, errors: ReadonlyArray<string>]> = [
  ["post", "/v1/payments", "201", ["404"]],
  ["get", "/v1/payments", "200", []],
  ["get", "/v1/payments/{id}", "200", ["404"]],
  ["post", "/v1/payments/{id}/cancel", "200", ["404", "409"]],
  ["get", "/v1/payments/{id}/status", "200", ["404"]],
  ["post", "/v1/refunds", "201", ["404", "409"]],
  ["get", "/v1/payments/{id}/refunds", "200", ["404"]],
  ["post", "/v1/merchants", "201", ["409"]],
  ["get", "/v1/merchants", "200", []],
  ["get", "/v1/merchants/payments", "200", ["404"]],
  ["get", "/v1/merchants/{merchantId}", "200", ["404"]],
  ["patch", "/v1/merchants/{merchantId}", "200", ["404", "409"]],
  ["delete", "/v1/merchants/{merchantId}", "200", ["404"]],
  ["get", "/v1/merchants/{merchantId}/payments", "200", ["404"]],
  ["get", "/v1/merchants/{merchantId}/settlements", "200", ["404"]],
  ["post", "/v1/merchants/{merchantId}/settlements/crypto", "201", ["404", "409"]],
  ["put", "/v1/merchants/{merchantId}/settlements/crypto/{id}", "200", ["404"]],
  ["delete", "/v1/merchants/{merchantId}/settlements/crypto/{id}", "200", ["404"]],
  ["get", "/v1/api-keys", "200", []],
  ["post", "/v1/api-keys", "201", []],
  ["delete", "/v1/api-keys/{id}", "200", ["404"]],
  ["patch", "/v1/webhooks/{id}", "200", ["404"]],
  ["post", "/v1/webhooks/{id}/rotate-secret", "200", ["404"]],
  ["get", "/v1/events", "200", []],
  ["get", "/v1/events/{eventId}", "200", ["404"]],
  ["get", "/v1/payments/{id}/deliveries", "200", ["404"]]
]

const codesAt = (operation: any, status: string): Array<string> => {
  const schema = operation.responses[status]?.content?.["application/json"]?.schema
  const refs: Array<any> = schema === undefined ? [] : schema.anyOf ?? [schema]
  return refs.map((ref) => {
    const resolved = spec.components.schemas[String(ref.$ref).split("/").at(-1)!]
    return resolved.properties.code.enum[0]
  })
}

describe("OpenAPI of the partner API", () => {
  it.each(operations)("%s %s is documented with a summary, its success and every error", (method, path, success, errors) => {
    const operation = spec.paths[path]?.[method]
    expect(operation, `${method} ${path}`).toBeDefined()
    expect(operation.summary).toEqual(expect.any(String))
    expect(Object.keys(operation.responses)).toContain(success)
    for (const status of ["400", "401", "403", "429", "500", ...errors]) expect(Object.keys(operation.responses)).toContain(status)
    expect(codesAt(operation, "400")).toEqual(expect.arrayContaining(["invalid_params", "params_validation", "header_not_ascii"]))
    expect(codesAt(operation, "401")).toEqual(expect.arrayContaining(["missing_api_key", "invalid_api_key", "unauthorized"]))
    expect(codesAt(operation, "403").sort()).toEqual(["forbidden", "not_sandbox_api_key"])
    expect(codesAt(operation, "429")).toEqual(["rate_limited"])
  })

  it("names each operation's own error codes", () => {
    const codes = (method: string, path: string, status: string) => codesAt(spec.paths[path][method], status)
    expect(codes("post", "/v1/payments", "404")).toEqual(["merchant_not_found"])
    expect(codes("post", "/v1/payments/{id}/cancel", "409")).toEqual(expect.arrayContaining(["invalid_state", "idempotency_conflict"]))
    expect(codes("post", "/v1/refunds", "409")).toEqual(expect.arrayContaining(["payment_not_succeeded", "already_refunded", "idempotency_conflict"]))
    expect(codes("post", "/v1/refunds", "404")).toEqual(["payment_not_found"])
    expect(codes("get", "/v1/payments/{id}/refunds", "404")).toEqual(["payment_not_found"])
    expect(codes("post", "/v1/merchants", "409")).toEqual(expect.arrayContaining(["merchant_exists"]))
    expect(codes("get", "/v1/merchants/payments", "400")).toContain("missing_merchant_id")
    expect(codes("post", "/v1/merchants/{merchantId}/settlements/crypto", "409")).toContain("invalid_state")
  })

  it("marks the per-path merchant payment listing deprecated, with its Deprecation header", () => {
    const operation = spec.paths["/v1/merchants/{merchantId}/payments"].get
    expect(operation.deprecated).toBe(true)
    expect(Object.keys(operation.responses["200"].headers)).toEqual(expect.arrayContaining(["deprecation"]))
    expect(spec.paths["/v1/merchants/payments"].get.deprecated).toBeUndefined()
  })

  it("documents PATCH iconUrl as nullable and the other update fields as optional strings", () => {
    const schema = spec.components.schemas.UpdateMerchantRequest
    expect(schema.required ?? []).toEqual([])
    expect(schema.properties.iconUrl.anyOf).toEqual(expect.arrayContaining([{ type: "null" }]))
    expect(schema.properties.merchantName).toEqual({ type: "string" })
  })
})
