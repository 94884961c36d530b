import { describe, expect, it } from "vitest"

describe("runtime", () => {
  it("runs the tests on the pinned Node 24, not the machine's Node 20", () => {
    expect(process.versions.node.split(".")[0]).toBe("24")
  })
})
