import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonical, canonicalOrNull, money, sum } from "./money.ts";

describe("canonical decimal strings", () => {
  it.each([
    ["1.50", "1.5"],
    ["100", "100"],
    ["100.000", "100"],
    ["0.00", "0"],
    ["-0", "0"],
    ["-0.000", "0"],
    ["", "0"],
    ["-12.340", "-12.34"],
    ["0.0001", "0.0001"],
    ["123456789012345678901234567890.12", "123456789012345678901234567890.12"],
    ["1e-10", "0.0000000001"],
    ["1e+25", "10000000000000000000000000"],
  ])("%s -> %s", (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it("treats null and undefined as 0, and keeps null for nullable fields", () => {
    expect(canonical(null)).toBe("0");
    expect(canonical(undefined)).toBe("0");
    expect(canonicalOrNull(null)).toBeNull();
    expect(canonicalOrNull("2.10")).toBe("2.1");
  });

  it("adds without float drift", () => {
    expect(canonical(sum(["0.1", "0.2"]))).toBe("0.3");
    expect(canonical(money("0.1").plus("0.2").minus("0.3"))).toBe("0");
  });

  const decimalString = fc
    .tuple(
      fc.boolean(),
      fc.bigInt({ min: 0n, max: 10n ** 24n }),
      fc.nat({ max: 12 }),
      fc.nat({ max: 6 }),
    )
    .map(([neg, digits, scale, extraZeros]) => {
      const s = digits.toString().padStart(scale + 1, "0");
      const body = scale === 0 ? s : `${s.slice(0, -scale)}.${s.slice(-scale)}`;
      const padded =
        extraZeros > 0 ? `${body}${body.includes(".") ? "" : "."}${"0".repeat(extraZeros)}` : body;
      return `${neg ? "-" : ""}${padded}`;
    });

  it("is canonical for any decimal: no trailing zeros, no -0, no exponent, same value", () => {
    fc.assert(
      fc.property(decimalString, (input) => {
        const out = canonical(input);
        expect(out).toMatch(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
        expect(out).not.toBe("-0");
        expect(money(out).equals(money(input))).toBe(true);
        // Idempotent, and a JSON string, never a JSON number.
        expect(canonical(out)).toBe(out);
        expect(typeof JSON.parse(JSON.stringify({ v: out })).v).toBe("string");
      }),
      { numRuns: 2000 },
    );
  });
});
