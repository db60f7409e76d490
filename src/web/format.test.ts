import { describe, expect, it } from "vitest";
import { formatAmount, formatInstant } from "./format.ts";

describe("formatAmount", () => {
  it.each([
    ["0", "0.00"],
    ["-1234567.5", "-1,234,567.50"],
    ["999.999", "1,000.00"],
    ["12345678901234567890.01", "12,345,678,901,234,567,890.01"],
    ["-0.001", "0.00"],
  ])("%s -> %s", (input, out) => {
    expect(formatAmount(input)).toBe(out);
  });
});

describe("formatInstant", () => {
  it("shows the instant in the organisation's zone, and a dash for never", () => {
    expect(formatInstant("2026-03-02T03:04:05.000Z", "UTC")).toBe("2026-03-02 03:04");
    expect(
      formatInstant("2026-03-02T03:04:05.000Z", "Australia/Sydney", { seconds: true, zone: true }),
    ).toBe("2026-03-02 14:04:05 GMT+11");
    expect(formatInstant(null)).toBe("—");
  });
});
