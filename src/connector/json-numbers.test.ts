import { describe, expect, it } from "vitest";
import { parseDecimal, parseJsonKeepingNumbers, quoteNumbers } from "./json-numbers.ts";

describe("parseJsonKeepingNumbers", () => {
  it("keeps every number exactly as written, as a string", () => {
    const v = parseJsonKeepingNumbers(
      '{"a":0.1,"b":1234567.891,"c":12345678901234567.89,"d":-0.000001,"e":1e-7,"f":[0,40.00]}',
    );
    expect(v).toEqual({
      a: "0.1",
      b: "1234567.891",
      c: "12345678901234567.89",
      d: "-0.000001",
      e: "1e-7",
      f: ["0", "40.00"],
    });
  });

  it("leaves strings, booleans and null alone, digits and escaped quotes inside strings included", () => {
    const text = '{"s":"12 \\"34\\" -5","t":true,"n":null,"k\\\\":"\\\\","u":"\\u0031"}';
    expect(parseJsonKeepingNumbers(text)).toEqual({
      s: '12 "34" -5',
      t: true,
      n: null,
      "k\\": "\\",
      u: "1",
    });
  });

  it("does not lose digits that JSON.parse would round", () => {
    const v = parseJsonKeepingNumbers("[9007199254740993, 0.30000000000000004441]") as string[];
    expect(v).toEqual(["9007199254740993", "0.30000000000000004441"]);
    // What a float-based parse would have made of them:
    expect(String(JSON.parse("[9007199254740993]")[0])).toBe("9007199254740992");
  });

  it("reports invalid JSON with the position in the original text", () => {
    expect(() => parseJsonKeepingNumbers('{"a": 1,}')).toThrow(SyntaxError);
    expect(() => parseJsonKeepingNumbers('{"a": 1,}')).toThrow(/position 8/);
    expect(() => parseJsonKeepingNumbers('{"a": "open')).toThrow(SyntaxError);
  });

  it.each(["12.", "0012", "-", "1e", "1.e5", "--1", "1-2", ".5"])(
    "refuses the literal %s, which JSON does not allow",
    (literal) => {
      expect(() => parseJsonKeepingNumbers(`{"a": ${literal}}`)).toThrow(SyntaxError);
    },
  );

  it("returns the text unchanged when it holds no numbers", () => {
    const text = '{"a":["x",true]}';
    expect(quoteNumbers(text)).toBe(text);
  });
});

describe("parseDecimal", () => {
  it.each([
    ["0.1", "0.1"],
    ["40.00", "40"],
    ["-12.50", "-12.5"],
    ["1234567.891", "1234567.891"],
    ["1e-7", "0.0000001"],
    ["+5", "5"],
    [" 50.00 ", "50"],
    ["-0.00", "0"],
  ])("reads %j as %j", (input, expected) => {
    expect(parseDecimal(input)).toBe(expected);
  });

  it("accepts JS numbers from other sources", () => {
    expect(parseDecimal(0.1)).toBe("0.1");
    expect(parseDecimal(Number.NaN)).toBeUndefined();
  });

  it.each(["abc", "", "1,000", "12.3.4", "0x10", "Infinity"])("refuses %j", (input) => {
    expect(parseDecimal(input)).toBeUndefined();
  });

  it.each([
    ["90071992547409.91", "90071992547409.91"],
    ["-90071992547409.91", "-90071992547409.91"],
    ["1e-20", "0.00000000000000000001"],
    ["9.007199254740991e13", "90071992547409.91"],
  ])("reads %j, at the edge of the ledger's range", (input, expected) => {
    expect(parseDecimal(input)).toBe(expected);
  });

  it.each([
    "90071992547409.92",
    "-90071992547409.92",
    "12345678901234567.89",
    "1e1000000000",
    "-1e1000000000",
    "1e-21",
    "0.000000000000000000001",
    "1e-200000",
  ])("refuses %j, outside it (without writing it out in full)", (input) => {
    expect(parseDecimal(input)).toBeUndefined();
  });

  it("refuses non-numbers", () => {
    expect(parseDecimal(true)).toBeUndefined();
    expect(parseDecimal(null)).toBeUndefined();
    expect(parseDecimal({})).toBeUndefined();
  });
});
