import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoInstant } from "./iso-instant.ts";

describe("isoInstant", () => {
  it("writes what toISOString writes, for any instant, in any order of calls", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { minLength: 1, maxLength: 20 }),
        (instants) => {
          for (const ms of instants) expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
        },
      ),
    );
  });

  it.each([
    0, -1, 999, 1000, 1_782_784_800_000, 1_782_784_800_001, 1_782_784_800_999, -62_167_219_200_000,
    253_402_300_799_999, 253_402_300_800_000,
  ])("writes %d as toISOString does", (ms) => {
    expect(isoInstant(ms)).toBe(new Date(ms).toISOString());
  });

  it("refuses what toISOString refuses", () => {
    expect(() => isoInstant(Number.NaN)).toThrow(RangeError);
    expect(() => isoInstant(8.64e15 + 1)).toThrow(RangeError);
  });
});
