import { FailureLine } from "@paygate/adapters"
import { Cause } from "effect"
import { describe, expect, it } from "vitest"

describe("FailureLine", () => {
  it("is the failure's first line, with its cause's first line, never a stack", () => {
    const error = new Error("Could not start the embedded database in /srv/x.\nmore", { cause: new Error("EACCES: permission denied\n    at open") })
    expect(FailureLine.failureLine(Cause.fail(error))).toBe("Could not start the embedded database in /srv/x. (EACCES: permission denied)")
    expect(FailureLine.failureLine(Cause.die(new Error("boom\n    at somewhere (file.ts:1:1)")))).toBe("boom")
    expect(FailureLine.failureLine(Cause.fail({ message: "the same reason", cause: new Error("the same reason") }))).toBe("the same reason")
    expect(FailureLine.failureLine(Cause.fail("plain text"))).toBe("plain text")
  })
})
