import { describe, expect, it } from "vitest";
import { RecentMap } from "./recent-map.ts";

describe("RecentMap", () => {
  it("keeps the most recent entries, between half the capacity and all of it", () => {
    const map = new RecentMap<number, string>(10);
    for (let i = 0; i < 100; i++) {
      map.set(i, `v${i}`);
      expect(map.size).toBeLessThanOrEqual(10);
      expect(map.size).toBeGreaterThanOrEqual(Math.min(i + 1, 5));
      // The latest five are always there, whatever the generation boundary.
      for (let j = Math.max(0, i - 4); j <= i; j++) expect(map.get(j)).toBe(`v${j}`);
    }
    expect(map.get(0)).toBeUndefined();
    expect(map.get(89)).toBeUndefined();
  });

  it("deletes from either generation, and a key set again holds its latest value once", () => {
    const map = new RecentMap<string, number>(4);
    map.set("a", 1);
    map.set("b", 2); // a and b move to the previous generation
    map.set("c", 3);
    expect(map.delete("a")).toBe(true);
    expect(map.delete("c")).toBe(true);
    expect(map.delete("c")).toBe(false);
    expect(map.get("a")).toBeUndefined();
    map.set("b", 20); // in the previous generation: moved, not duplicated
    expect(map.get("b")).toBe(20);
    expect(map.size).toBe(1);
  });
});
