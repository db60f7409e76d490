import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keepJson, serializeReusing } from "./json-reuse.ts";

const text = (bytes: string | Uint8Array) =>
  typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("utf8");

describe("serializeReusing", () => {
  it("answers JSON.stringify's bytes whether or not a value was kept", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.array(fc.jsonValue()),
        fc.string(),
        (record, kept, key) => {
          const body: Record<string, unknown> = { ...record, [key]: keepJson([...kept]) };
          expect(text(serializeReusing(body))).toBe(JSON.stringify(body));
          expect(serializeReusing(record)).toBe(JSON.stringify(record));
        },
      ),
    );
  });

  it("leaves out what JSON.stringify leaves out, keeps key order and encodes UTF-8", () => {
    const weeks = keepJson([{ name: "Café – 東京 😀" }]);
    const body = { z: undefined, weeks, f: () => 1, at: new Date(0), n: null, "2": 2, "1": 1 };
    const bytes = serializeReusing(body);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(text(bytes)).toBe(JSON.stringify(body));
    expect(text(serializeReusing({ weeks }))).toBe(`{"weeks":${JSON.stringify(weeks)}}`);
    expect(text(serializeReusing(weeks))).toBe(JSON.stringify(weeks));
    expect(serializeReusing("x")).toBe('"x"');
  });

  it("reuses the kept bytes, and kept values cannot change under them", () => {
    const weeks = keepJson([{ itemIds: ["a"] }]);
    const ids: string[] = weeks[0]?.itemIds ?? [];
    expect(ids).toEqual(["a"]);
    expect(() => ids.push("b")).toThrow(TypeError);
    expect(Object.isFrozen(weeks[0])).toBe(true);
    expect(text(serializeReusing({ weeks }))).toBe('{"weeks":[{"itemIds":["a"]}]}');
  });

  // Found in review: shapes where splicing could have differed from JSON.stringify.
  const weeks = keepJson([{ a: 1 }]);
  const edges: Record<string, () => unknown> = {
    getter: () => ({
      weeks,
      get g() {
        return 1;
      },
    }),
    symbol: () => ({ weeks, [Symbol("s")]: 1 }),
    inherited: () => Object.assign(Object.create({ inherited: 1 }), { weeks }),
    inheritedToJSON: () =>
      Object.assign(
        Object.create({
          toJSON() {
            return "x";
          },
        }),
        { weeks },
      ),
    nonEnumerable: () =>
      Object.defineProperty({ weeks }, "hidden", { value: 1, enumerable: false }),
    nested: () => ({ outer: { weeks } }),
    arrayOfKept: () => [weeks, weeks],
    toJSONGivenItsKey: () => ({ weeks, v: { toJSON: (k: string) => k } }),
    map: () => ({ weeks, m: new Map([[1, 2]]) }),
    leftOut: () => ({ a: undefined, weeks, b: () => 1, c: Symbol("x") }),
    emptyKey: () => ({ "": weeks }),
    keptTwice: () => ({ a: weeks, b: weeks }),
    protoKey: () => {
      const v = JSON.parse('{"__proto__": 1, "w": 0}');
      v.w = weeks;
      return v;
    },
  };
  for (const [name, make] of Object.entries(edges)) {
    it(`matches JSON.stringify: ${name}`, () => {
      const body = make();
      expect(text(serializeReusing(body))).toBe(JSON.stringify(body));
    });
  }

  it("keeps plain JSON data only", () => {
    expect(() => keepJson([{ at: new Date(0) }])).toThrow(TypeError);
    expect(() => keepJson({ toJSON: () => "x" })).toThrow(TypeError);
    expect(() => keepJson([new Map()])).toThrow(TypeError);
    expect(() => keepJson(Object.create(null))).not.toThrow();
  });
});
