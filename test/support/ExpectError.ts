import { expect } from "vitest"
import type { TestResponse } from "./TestServer.ts"

/** Asserts a contract error response: the status, the code, and a body of exactly `{code, message}` in JSON. */
export const expectError = (response: TestResponse, status: number, code: string) => {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code })
  expect(Object.keys(response.body).sort()).toEqual(["code", "message"])
  expect(typeof response.body.message).toBe("string")
  expect(response.headers.get("content-type")).toContain("application/json")
}
