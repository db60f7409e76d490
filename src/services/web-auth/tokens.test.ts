import { describe, expect, it } from "vitest";
import { digestToken, isWellFormedToken, newRandomToken, tokensMatch } from "./tokens.ts";

describe("tokens", () => {
  it("are 256-bit base64url, distinct, and stored only as a digest", () => {
    const a = newRandomToken();
    expect(isWellFormedToken(a)).toBe(true);
    expect(newRandomToken()).not.toBe(a);
    expect(digestToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestToken(a)).not.toContain(a);
  });

  it("match only an identical, non-empty value", () => {
    const a = newRandomToken();
    expect(tokensMatch(a, a)).toBe(true);
    expect(tokensMatch(a, newRandomToken())).toBe(false);
    expect(tokensMatch(a, undefined)).toBe(false);
    expect(tokensMatch(a, a.slice(1))).toBe(false);
    expect(tokensMatch("", "")).toBe(false);
  });

  it("refuses malformed tokens before any lookup", () => {
    for (const bad of [
      undefined,
      null,
      "",
      "short",
      `${newRandomToken()}x`,
      `${"a".repeat(42)}!`,
    ]) {
      expect(isWellFormedToken(bad)).toBe(false);
    }
  });
});
