import { describe, expect, it } from "vitest";
import { statusTotals } from "./totals.ts";

const STATUSES = ["DRAFT", "PAID"];
const zero = { count: 0, amount: "0" };

describe("statusTotals", () => {
  it("zero-fills every status and sums exactly for one currency", () => {
    expect(
      statusTotals(
        [
          { status: "PAID", currency: "AUD", count: 2, amount: "0.1" },
          { status: "PAID", currency: "AUD", count: 1, amount: "0.2" },
        ],
        STATUSES,
      ),
    ).toEqual({
      byStatus: { DRAFT: zero, PAID: { count: 3, amount: "0.3" } },
      grandTotal: { count: 3, amount: "0.3" },
      currency: "AUD",
    });
  });

  it("short-circuits several currencies to mixedCurrency with the first code", () => {
    expect(
      statusTotals(
        [
          { status: "PAID", currency: "USD", count: 1, amount: "1" },
          { status: "DRAFT", currency: "AUD", count: 1, amount: "1" },
        ],
        STATUSES,
      ),
    ).toEqual({ byStatus: null, mixedCurrency: true, primaryCurrency: "AUD" });
  });

  it("gives zero buckets and no currency for an empty set", () => {
    expect(statusTotals([], STATUSES)).toEqual({
      byStatus: { DRAFT: zero, PAID: zero },
      grandTotal: zero,
    });
  });

  it("keys only the vocabulary's statuses", () => {
    const t = statusTotals([{ status: "ODD", currency: "AUD", count: 1, amount: "5" }], STATUSES);
    expect(t).toEqual({
      byStatus: { DRAFT: zero, PAID: zero },
      grandTotal: { count: 1, amount: "5" },
      currency: "AUD",
    });
  });
});
