import { describe, expect, it } from "vitest";
import { decimalText } from "./format.ts";
import {
  isCalendarDate,
  MAX_PAGE_LIMIT,
  parseBooleanParam,
  parseLimit,
  parseStatusFilter,
} from "./params.ts";

describe("list parameters", () => {
  it("parses limits: positive integers, capped", () => {
    expect(["1", "50", "200", "201", "999999999999999999999", "007"].map(parseLimit)).toEqual([
      1,
      50,
      MAX_PAGE_LIMIT,
      MAX_PAGE_LIMIT,
      MAX_PAGE_LIMIT,
      7,
    ]);
    for (const bad of ["0", "-1", "1.5", "1e2", "", " 5", "ten"])
      expect(parseLimit(bad)).toBeUndefined();
  });

  it("parses booleans: true/1/false/0 only", () => {
    expect(["true", "1", "false", "0"].map(parseBooleanParam)).toEqual([true, true, false, false]);
    for (const bad of ["TRUE", "yes", "", "2"]) expect(parseBooleanParam(bad)).toBeUndefined();
  });

  it("accepts real calendar dates only", () => {
    for (const ok of ["2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31"])
      expect(isCalendarDate(ok)).toBe(true);
    for (const bad of [
      "2023-02-29",
      "1900-02-29",
      "2024-13-01",
      "2024-00-10",
      "2024-04-31",
      "0000-01-01",
      "2024-1-5",
      "20240105",
    ]) {
      expect(isCalendarDate(bad), bad).toBe(false);
    }
  });

  it("reads a status list: case-insensitive, unknown ignored, no known value is no filter", () => {
    const v = ["DRAFT", "PAID", "VOIDED"] as const;
    expect(parseStatusFilter(undefined, v)).toBeNull();
    expect(parseStatusFilter("", v)).toBeNull();
    expect(parseStatusFilter(" , ", v)).toBeNull();
    expect(parseStatusFilter("paid, Draft,nope", v)).toEqual(["DRAFT", "PAID"]);
    expect(parseStatusFilter(["VOIDED", "PAID,PAID"], v)).toEqual(["PAID", "VOIDED"]);
    expect(parseStatusFilter("UNPAID", v)).toBeNull();
    expect(parseStatusFilter(["UNPAID", "nope,"], v)).toBeNull();
    expect(parseStatusFilter("PAID,UNPAID", v)).toEqual(["PAID"]);
  });

  it("formats PostgreSQL decimals canonically without decimal.js", () => {
    const cases: [string, string][] = [
      ["0", "0"],
      ["0.000", "0"],
      ["-0.00", "0"],
      ["12.3400", "12.34"],
      ["-0.50", "-0.5"],
      ["100", "100"],
      ["100.0", "100"],
      ["12345678901234567.8900", "12345678901234567.89"],
      ["1e3", "1000"],
    ];
    for (const [input, out] of cases) expect(decimalText(input), input).toBe(out);
  });
});
