import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  base32Encode,
  checksumHolds,
  DUMMY_DIGEST,
  digestSecret,
  generateApiKey,
  isKeyPrefix,
  KEY_ALPHABET,
  keyChecksum,
  keyFamilyForKind,
  parseApiKey,
  parseApiKeyShape,
  secretMatchesDigest,
} from "./keys.ts";

const SHAPE = {
  cr_live: /^cr_live_[0-9a-hjkmnp-tv-z]{10}_[0-9a-hjkmnp-tv-z]{38}$/,
  crun: /^crun_[0-9a-hjkmnp-tv-z]{10}_[0-9a-hjkmnp-tv-z]{38}$/,
};

describe("API key format", () => {
  it("generates cr_live_<prefix>_<secret> and crun_<prefix>_<secret> in lower-case Crockford base32", () => {
    for (const family of ["cr_live", "crun"] as const) {
      const k = generateApiKey(family);
      expect(k.key).toMatch(SHAPE[family]);
      expect(k.key).toBe(`${family}_${k.prefix}_${k.secret}`);
      expect(isKeyPrefix(k.prefix)).toBe(true);
    }
  });

  it("puts at least 128 random bits in the secret (160, from the random source)", () => {
    const seen: number[] = [];
    const random = (n: number) => {
      seen.push(n);
      return new Uint8Array(n).fill(0xff);
    };
    const k = generateApiKey("crun", random);
    expect(seen).toEqual([10, 20]); // prefix bytes, then 20 secret bytes = 160 bits
    expect(k.secret.slice(0, 32)).toBe("z".repeat(32)); // every secret bit comes from the source
    const many = new Set(Array.from({ length: 200 }, () => generateApiKey("cr_live").secret));
    expect(many.size).toBe(200);
  });

  it("encodes base32 in RFC 4648 bit order with the Crockford alphabet", () => {
    // RFC 4648 test vector "foobar" = MZXW6YTBOI; mapped through the Crockford alphabet.
    const rfc = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const expected = "MZXW6YTBOI"
      .split("")
      .map((ch) => KEY_ALPHABET[rfc.indexOf(ch)])
      .join("");
    expect(base32Encode(new TextEncoder().encode("foobar"))).toBe(expected);
    expect(base32Encode(new Uint8Array([]))).toBe("");
  });

  it("ends the secret with a 6-character checksum of family, prefix and body", () => {
    const k = generateApiKey("cr_live");
    expect(k.secret.slice(32)).toBe(keyChecksum("cr_live", k.prefix, k.secret.slice(0, 32)));
    // The checksum binds the family: the same prefix and secret under the other family fail.
    expect(parseApiKey(`crun_${k.prefix}_${k.secret}`)).toBeNull();
  });

  it("parses a generated key back into its parts", () => {
    const k = generateApiKey("crun");
    expect(parseApiKey(k.key)).toEqual({ family: "crun", prefix: k.prefix, secret: k.secret });
  });

  it("splits by shape alone, leaving the checksum to checksumHolds", () => {
    const k = generateApiKey("cr_live");
    const last = k.key.slice(-1);
    const typo = `${k.key.slice(0, -1)}${last === "0" ? "1" : "0"}`;
    const shape = parseApiKeyShape(typo);
    expect(shape).toEqual({ family: "cr_live", prefix: k.prefix, secret: typo.split("_")[3] });
    expect(shape && checksumHolds(shape)).toBe(false);
    expect(checksumHolds({ family: k.family, prefix: k.prefix, secret: k.secret })).toBe(true);
    expect(parseApiKeyShape("x".repeat(100_000))).toBeNull();
  });

  it("refuses any single mistyped character through the checksum or the shape", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("cr_live" as const, "crun" as const),
        fc.nat(),
        fc.nat(),
        (family, pos, sub) => {
          const k = generateApiKey(family);
          const start = family.length + 1;
          const i = start + (pos % (k.key.length - start));
          const original = k.key[i] ?? "";
          if (original === "_") return;
          const others = KEY_ALPHABET.replace(original, "");
          const typo = `${k.key.slice(0, i)}${others[sub % others.length]}${k.key.slice(i + 1)}`;
          expect(parseApiKey(typo)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ["empty", ""],
    ["wrong family", "sk_live_abcdefghjk_0123456789abcdefghjkmnpqrstvwxyz012345"],
    ["upper case", generateApiKey("crun").key.toUpperCase()],
    ["truncated", generateApiKey("crun").key.slice(0, -1)],
    ["extra character", `${generateApiKey("crun").key}0`],
    ["letter outside the alphabet", generateApiKey("crun").key.replace(/.$/, "u")],
    ["huge", "x".repeat(100_000)],
  ])("refuses a malformed key (%s)", (_name, raw) => {
    expect(parseApiKey(raw)).toBeNull();
  });

  it("stores the SHA-256 hex digest and compares it in constant time", () => {
    const k = generateApiKey("cr_live");
    const digest = digestSecret(k.secret);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain(k.secret);
    expect(digestSecret("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(secretMatchesDigest(k.secret, digest)).toBe(true);
    const last = k.secret.slice(-1);
    const typo = `${k.secret.slice(0, -1)}${last === "0" ? "1" : "0"}`;
    expect(secretMatchesDigest(typo, digest)).toBe(false);
    expect(secretMatchesDigest(k.secret, DUMMY_DIGEST)).toBe(false);
    expect(secretMatchesDigest(k.secret, "not-hex")).toBe(false);
  });

  it("gives organisation keys cr_live_ and USER and PARTNER keys crun_", () => {
    expect(keyFamilyForKind("ORG")).toBe("cr_live");
    expect(keyFamilyForKind("USER")).toBe("crun");
    expect(keyFamilyForKind("PARTNER")).toBe("crun");
  });
});
