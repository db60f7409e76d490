import { describe, expect, it } from "vitest";
import { accountOrder, mostUsedAccount } from "./account-choice.ts";

describe("the account a fitted stream is forecast under", () => {
  // The chart lists Sales (code 200) before Service Revenue (code 210); their ids sort the other way.
  const order = accountOrder([
    { id: "z-sales", name: "Sales" },
    { id: "a-service", name: "Service Revenue" },
  ]);

  it("is the account most of its documents used", () => {
    expect(mostUsedAccount(["a-service", "z-sales", "a-service", null], order)).toBe("a-service");
  });

  it("breaks a tie by the chart of accounts, whatever ids an import assigned", () => {
    expect(mostUsedAccount(["a-service", "z-sales"], order)).toBe("z-sales");
    expect(mostUsedAccount(["z-sales", "a-service"], order)).toBe("z-sales");
  });

  it("falls back to the smallest id for accounts outside the chart, and null for none", () => {
    expect(mostUsedAccount(["q", "p"], order)).toBe("p");
    expect(mostUsedAccount(["q", "z-sales"], order)).toBe("z-sales");
    expect(mostUsedAccount([null, null], order)).toBeNull();
  });
});
