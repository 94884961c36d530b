import { assert, describe, it } from "@effect/vitest"
import { refundLegs } from "../../src/refund/RefundLegs.ts"
import { account, commitmentOf, receipt } from "./Fixtures.ts"

const commitment = commitmentOf(100n)

describe("refundLegs", () => {
  it("one transfer, or none recorded: the whole amount back to the committed account", () => {
    assert.deepStrictEqual(refundLegs(commitment, []), [{ recipient: account(9), value: 100n }])
    assert.deepStrictEqual(refundLegs(commitment, [receipt(1, 100n)]), [{ recipient: account(9), value: 100n }])
  })

  it("parts: each sender gets back what their parts counted, in the order they paid; an overpayment's excess is not in it", () => {
    const parts = [receipt(2, 30n, "paid", 100n), receipt(1, 20n, "paid", 70n), receipt(2, 10n, "paid", 50n), receipt(3, 60n, "overpaid", 40n)]
    assert.deepStrictEqual(refundLegs(commitment, parts.toReversed()), [
      { recipient: account(2), value: 40n },
      { recipient: account(1), value: 20n },
      { recipient: account(3), value: 40n }
    ])
  })

  it("receipts that do not add up to the committed amount, or of another token or outcome, leave the refund whole", () => {
    assert.deepStrictEqual(refundLegs(commitment, [receipt(1, 30n), receipt(2, 60n)]), [{ recipient: account(9), value: 100n }])
    const other = "eip155:1/erc20:0xdAC17F958D2ee523a2206206994597C13D831ec7"
    assert.deepStrictEqual(
      refundLegs(commitment, [receipt(1, 50n), receipt(2, 50n, "late"), receipt(3, 50n, "paid", null, other)]),
      [{ recipient: account(9), value: 100n }]
    )
  })
})
