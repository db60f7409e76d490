import { describe, expect, it } from "vitest";
import { CursorError, cursorKey, decodeCursor, encodeCursor, filterHash } from "./cursor.ts";

const key = cursorKey("test secret");
const binding = {
  resource: "invoices",
  orgId: "org_a",
  filterHash: filterHash({ status: ["PAID"] }),
};

describe("cursors", () => {
  it("round-trip a position, opaque and base64url", () => {
    const c = encodeCursor({ key: "2024-01-31", id: "ci_x" }, binding, key);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(c).not.toContain("2024");
    expect(Buffer.from(c, "base64url").toString("latin1")).not.toContain("ci_x");
    expect(decodeCursor(c, binding, key)).toEqual({ key: "2024-01-31", id: "ci_x" });
    expect(
      decodeCursor(encodeCursor({ key: null, id: "ci_y" }, binding, key), binding, key),
    ).toEqual({ key: null, id: "ci_y" });
  });

  it("refuse a changed cursor, another key, list, organisation or filters", () => {
    const c = encodeCursor({ key: "2024-01-31", id: "ci_x" }, binding, key);
    const bytes = Buffer.from(c, "base64url");
    for (let i = 0; i < bytes.length; i += 7) {
      const copy = Buffer.from(bytes);
      copy[i] = (copy[i] ?? 0) ^ 1;
      expect(() => decodeCursor(copy.toString("base64url"), binding, key)).toThrow(CursorError);
    }
    expect(() => decodeCursor(c, binding, cursorKey("other"))).toThrow(CursorError);
    expect(() => decodeCursor(c, { ...binding, resource: "bills" }, key)).toThrow(/another list/);
    expect(() => decodeCursor(c, { ...binding, orgId: "org_b" }, key)).toThrow(
      /another organisation/,
    );
    expect(() =>
      decodeCursor(c, { ...binding, filterHash: filterHash({ status: null }) }, key),
    ).toThrow(/other filters/);
    for (const bad of ["", "!!", "a", "x".repeat(2000)])
      expect(() => decodeCursor(bad, binding, key)).toThrow(CursorError);
  });

  it("hash equal filters equally whatever the key order", () => {
    expect(filterHash({ a: 1, b: null })).toBe(filterHash({ b: null, a: 1 }));
    expect(filterHash({ a: 1, b: undefined })).toBe(filterHash({ a: 1, b: null }));
    expect(filterHash({ a: 1 })).not.toBe(filterHash({ a: 2 }));
  });
});
