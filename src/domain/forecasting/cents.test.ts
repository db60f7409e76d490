import { describe, expect, it } from "vitest";
import { Money } from "../money.ts";
import {
  AmountRangeError,
  assertSafeCents,
  baseCents,
  centsToDecimal,
  medianCents,
  microToDecimal,
  toCents,
  toMicro,
  weighCents,
} from "./cents.ts";

describe("cents", () => {
  it("refuses a value beyond 2^53 − 1 cents with its own error class", () => {
    expect(assertSafeCents(2 ** 53 - 1)).toBe(2 ** 53 - 1);
    expect(() => assertSafeCents(2 ** 53)).toThrow(AmountRangeError);
    expect(() => assertSafeCents(-(2 ** 53))).toThrow(RangeError);
  });

  it.each([
    ["0", 0],
    ["12", 1200],
    ["12.5", 1250],
    ["-12.05", -1205],
    ["0.004", 0],
    ["0.005", 1],
    ["-0.005", -1],
    ["1.999", 200],
    ["1e2", 10000],
    ["9999999999999.99", 999999999999999],
    ["12345678901234.5", 1234567890123450],
  ])("toCents(%s) = %s", (text, cents) => {
    expect(toCents(text)).toBe(cents);
  });

  it("refuses what is not a number, and what is beyond the exact range", () => {
    expect(() => toCents("abc")).toThrow();
    expect(() => toCents("123456789012345678.99")).toThrow(RangeError);
  });

  it.each([
    [0, "0"],
    [1, "0.01"],
    [10, "0.1"],
    [123450, "1234.5"],
    [-5, "-0.05"],
    [-100, "-1"],
    [999999999999999, "9999999999999.99"],
  ])("centsToDecimal(%s) = %s", (cents, text) => {
    expect(centsToDecimal(cents)).toBe(text);
  });

  it("converts foreign amounts at the ledger's rate (foreign units per base unit)", () => {
    expect(baseCents("650", "USD", "AUD", "0.65")).toBe(100000);
    expect(baseCents("100", "USD", "AUD", "0.6543")).toBe(15284); // 152.83509… rounds to 152.84
    expect(baseCents("100", "AUD", "AUD", "0.5")).toBe(10000); // base currency: the rate is ignored
    expect(baseCents("100", "USD", "AUD", null)).toBe(10000); // no rate: as is
    expect(baseCents("100", "USD", "AUD", "0")).toBe(10000);
  });

  it("converts plain decimals in integers exactly as decimal.js does, half-cent ties included", () => {
    const slow = (amount: string, rate: string) =>
      Number(
        new Money(amount)
          .div(new Money(rate))
          .times(100)
          .toDecimalPlaces(0, Money.ROUND_HALF_UP)
          .toFixed(),
      );
    const cases: [string, string][] = [
      ["0.125", "1"],
      ["-0.125", "1"],
      ["-0.001", "3"],
      ["0", "0.7"],
      ["1", "0.0000000000003"],
      ["-0", "0.3"],
      ["0.01", "0.0000001"],
      ["999999999999.995", "1.00"],
      ["-2.5", "0.5"],
    ];
    // A fixed pseudo-random walk (no Math.random: the same cases on every run).
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (let k = 0; k < 2000; k++) {
      const amount = `${next(2) ? "-" : ""}${next(10 ** next(9))}.${String(next(1000)).padStart(3, "0")}`;
      const rate = `${next(3)}.${String(next(10 ** 6) + 1).padStart(6, "0")}`;
      cases.push([amount, rate]);
    }
    for (const [amount, rate] of cases)
      expect(Object.is(baseCents(amount, "USD", "AUD", rate), slow(amount, rate))).toBe(true);
  });

  it("weighs with integer millionths and rounds half away from zero, exactly", () => {
    expect(weighCents(1000, toMicro(0.4))).toBe(400);
    expect(weighCents(1, toMicro(0.5))).toBe(1);
    expect(weighCents(-1, toMicro(0.5))).toBe(-1);
    expect(weighCents(333, toMicro(1 / 3))).toBe(111);
    // Beyond 2^53 for the product: the BigInt path.
    expect(weighCents(900000000000001, 500000)).toBe(450000000000001);
    expect(toMicro(-1)).toBe(0);
    expect(microToDecimal(350000)).toBe("0.35");
    expect(microToDecimal(2000000)).toBe("2");
    expect(microToDecimal(1)).toBe("0.000001");
  });

  it("takes the median, the mean of the middle two for an even count", () => {
    expect(medianCents([5, 1, 3])).toBe(3);
    expect(medianCents([1, 2])).toBe(2); // 1.5 cents rounds up
    expect(medianCents([])).toBe(0);
  });
});
