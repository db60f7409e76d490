import { describe, expect, it } from "vitest";
import { parseLedgerDate, parseLedgerInstant } from "./ledger-dates.ts";

describe("parseLedgerDate (calendar dates)", () => {
  it.each([
    ["/Date(1539993600000+0000)/", "2018-10-20"],
    ["/Date(1539993600000)/", "2018-10-20"],
    // The offset is informational: the milliseconds are UTC midnight of the local date.
    ["/Date(1539993600000+1300)/", "2018-10-20"],
    ["/Date(1539993600000-0500)/", "2018-10-20"],
    ["/Date(-86400000+0000)/", "1969-12-31"],
    ["2024-01-31", "2024-01-31"],
    ["2024-01-31T00:00:00", "2024-01-31"],
    ["2024-02-29T00:00:00Z", "2024-02-29"],
    // An ISO date keeps its own date part whatever offset follows.
    ["2024-01-31T23:30:00-05:00", "2024-01-31"],
    ["2024-01-31 00:00:00", "2024-01-31"],
  ])("reads %s as %s", (input, expected) => {
    expect(parseLedgerDate(input)).toBe(expected);
  });

  it.each([
    ["0001-01-01", "0001-01-01"],
    ["9999-12-31", "9999-12-31"],
    ["/Date(-62135596800000)/", "0001-01-01"],
    ["/Date(253402214400000+0000)/", "9999-12-31"],
  ])("reads the first and last years a date column holds: %s", (input, expected) => {
    expect(parseLedgerDate(input)).toBe(expected);
  });

  it.each([
    "0000-01-01",
    "/Date(-62198755200000)/", // 0000-01-01
    "/Date(253402300800000+0000)/", // 10000-01-01
    "/Date(8640000000000000)/", // 275760-09-13
    "/Date(99999999999999999999)/",
  ])("refuses %s, outside the years 0001–9999", (input) => {
    expect(parseLedgerDate(input)).toBeUndefined();
    expect(parseLedgerInstant(input)).toBeUndefined();
  });

  it("never shifts a date by the process timezone", () => {
    // Midnight UTC is the previous evening in America/*; the date must not move.
    expect(parseLedgerDate("/Date(1704067200000+0000)/")).toBe("2024-01-01");
  });

  it.each([
    "",
    "2024-13-01",
    "2023-02-29",
    "31/01/2024",
    "/Date(abc)/",
    "Date(1539993600000)",
    "x",
  ])("refuses %j", (input) => {
    expect(parseLedgerDate(input)).toBeUndefined();
  });
});

describe("parseLedgerInstant (timestamps)", () => {
  it.each([
    ["/Date(1541176290160+0000)/", "2018-11-02T16:31:30.160Z"],
    ["/Date(1541176290160)/", "2018-11-02T16:31:30.160Z"],
    // The milliseconds are already UTC; the offset suffix does not move the instant.
    ["/Date(1541176290160+1300)/", "2018-11-02T16:31:30.160Z"],
    ["2018-11-02T16:31:30Z", "2018-11-02T16:31:30.000Z"],
    ["2018-11-02T16:31:30", "2018-11-02T16:31:30.000Z"],
    ["2018-11-02T16:31:30.5+13:00", "2018-11-02T03:31:30.500Z"],
    ["2018-11-02T16:31:30+1300", "2018-11-02T03:31:30.000Z"],
    ["2018-11-02", "2018-11-02T00:00:00.000Z"],
  ])("reads %s as %s", (input, expected) => {
    expect(parseLedgerInstant(input)?.toISOString()).toBe(expected);
  });

  it.each(["", "yesterday", "2018-11-02T25:00:00Z", "/Date()/"])("refuses %j", (input) => {
    expect(parseLedgerInstant(input)).toBeUndefined();
  });
});
