import { test } from "node:test";
import assert from "node:assert/strict";
import { formatCents } from "./money.mjs";

const cases = [
  [0, "$0.00"], [5, "$0.05"], [99, "$0.99"], [100, "$1.00"], [101, "$1.01"],
  [1999, "$19.99"], [-5, "-$0.05"], [-250, "-$2.50"],
];
for (const [cents, want] of cases) {
  test(`formatCents(${cents})`, () => {
    assert.equal(formatCents(cents), want);
  });
}
