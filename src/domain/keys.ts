import * as crypto from "node:crypto";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** SHA-256 of a string: the one-shot `crypto.hash` where Node has it (20.12+), half the cost. */
const sha256: (input: string) => Buffer =
  typeof crypto.hash === "function"
    ? (input) => crypto.hash("sha256", input, "buffer")
    : (input) => createHash("sha256").update(input).digest();

/**
 * API key format (pure; no database). A key reads
 *
 *   `<family>_<prefix>_<body><checksum>`
 *
 * - `family`: `cr_live` for organisation keys, `crun` for USER and PARTNER keys.
 * - `prefix`: 10 characters (50 random bits), public: shown in listings and logs, and the
 *   database lookup key (unique index).
 * - `body`: 160 random bits from `crypto.randomBytes`, Crockford base32 (32 characters).
 * - `checksum`: 6 characters = the first 30 bits of SHA-256(`<family>_<prefix>_<body>`), in the
 *   same alphabet. It is not a secret and proves nothing about authenticity; it lets a mistyped
 *   or truncated key be refused before any database read.
 *
 * The "secret" is `<body><checksum>` (38 characters); the service stores only its SHA-256 hex
 * digest. All characters are lower-case Crockford base32 (`0-9a-z` without `i l o u`), so the
 * key contains no `_` after the prefix and splits unambiguously.
 */

/** Crockford base32, lower case: no i, l, o, u, so keys survive being read aloud or retyped. */
export const KEY_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export const KEY_FAMILIES = ["cr_live", "crun"] as const;
export type KeyFamily = (typeof KEY_FAMILIES)[number];

export const KEY_PREFIX_LENGTH = 10;
/** 20 random bytes = 160 bits, 32 base32 characters. */
export const KEY_BODY_BYTES = 20;
export const KEY_BODY_LENGTH = 32;
export const KEY_CHECKSUM_LENGTH = 6;
export const KEY_SECRET_LENGTH = KEY_BODY_LENGTH + KEY_CHECKSUM_LENGTH;

const CHARS = "[0-9a-hjkmnp-tv-z]";
const KEY_PATTERN = new RegExp(
  `^(cr_live|crun)_(${CHARS}{${KEY_PREFIX_LENGTH}})_(${CHARS}{${KEY_SECRET_LENGTH}})$`,
);
const PREFIX_PATTERN = new RegExp(`^${CHARS}{${KEY_PREFIX_LENGTH}}$`);

/** The parts of a well-formed key whose checksum matches. */
export interface ParsedApiKey {
  family: KeyFamily;
  prefix: string;
  /** `<body><checksum>`: what is digested and compared. */
  secret: string;
}

/** A freshly generated key: `key` is shown once and never stored. */
export interface GeneratedApiKey extends ParsedApiKey {
  key: string;
}

/** Encodes bytes as unpadded Crockford base32 (RFC 4648 bit order). */
export function base32Encode(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += KEY_ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += KEY_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/** The 6-character checksum of `<family>_<prefix>_<body>`. */
export function keyChecksum(family: KeyFamily, prefix: string, body: string): string {
  const hash = createHash("sha256").update(`${family}_${prefix}_${body}`).digest();
  // 30 bits = the first 4 bytes minus 2 bits: six base32 characters.
  return base32Encode(hash.subarray(0, 4)).slice(0, KEY_CHECKSUM_LENGTH);
}

/** Random display prefix; uniqueness is enforced by the database (the caller retries). */
export function generateKeyPrefix(random: (size: number) => Uint8Array = randomBytes): string {
  const bytes = random(KEY_PREFIX_LENGTH);
  let out = "";
  // 256 is a multiple of 32, so masking to 5 bits keeps every character uniform.
  for (let i = 0; i < KEY_PREFIX_LENGTH; i++) out += KEY_ALPHABET[(bytes[i] ?? 0) & 31];
  return out;
}

/**
 * A new key of `family`. `random` is injectable for tests only; production uses
 * `crypto.randomBytes`.
 */
export function generateApiKey(
  family: KeyFamily,
  random: (size: number) => Uint8Array = randomBytes,
): GeneratedApiKey {
  const prefix = generateKeyPrefix(random);
  const body = base32Encode(random(KEY_BODY_BYTES));
  const secret = `${body}${keyChecksum(family, prefix, body)}`;
  return { family, prefix, secret, key: `${family}_${prefix}_${secret}` };
}

/**
 * Splits a presented key and checks its checksum. Null for anything malformed (wrong family,
 * length, alphabet, or checksum), so callers answer 401 without touching the database.
 */
export function parseApiKey(raw: string): ParsedApiKey | null {
  const parsed = parseApiKeyShape(raw);
  return parsed && checksumHolds(parsed) ? parsed : null;
}

/**
 * Splits a presented key by its shape (family, length, alphabet) without checking its checksum.
 * For a caller that compares the whole secret with a stored digest anyway: a secret whose digest
 * matches a key's was issued with that key's checksum, so the checksum adds nothing there.
 */
export function parseApiKeyShape(raw: string): ParsedApiKey | null {
  // A cheap length bound first: regexes never run on megabyte headers.
  if (raw.length > 80) return null;
  const m = KEY_PATTERN.exec(raw);
  if (!m) return null;
  return { family: m[1] as KeyFamily, prefix: m[2] ?? "", secret: m[3] ?? "" };
}

/** Whether a key's last characters are the checksum of the rest (a mistyped key fails). */
export function checksumHolds(key: ParsedApiKey): boolean {
  const body = key.secret.slice(0, KEY_BODY_LENGTH);
  return keyChecksum(key.family, key.prefix, body) === key.secret.slice(KEY_BODY_LENGTH);
}

/** True when `value` could be a key prefix (for CLI arguments and lookups). */
export function isKeyPrefix(value: string): boolean {
  return PREFIX_PATTERN.test(value);
}

/** SHA-256 hex of the secret: the only form in which a secret is ever stored. */
export function digestSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/**
 * Constant-time comparison of a presented secret with a stored digest (hex as stored, or its
 * bytes as the verified-key cache keeps them). A malformed digest
 * (wrong length) compares against itself so that the work done does not depend on it, and fails.
 */
export function secretMatchesDigest(secret: string, digest: string | Buffer): boolean {
  const presented = sha256(secret);
  const stored = typeof digest === "string" ? Buffer.from(digest, "hex") : digest;
  if (stored.length !== presented.length) {
    timingSafeEqual(presented, presented);
    return false;
  }
  return timingSafeEqual(presented, stored);
}

/** A digest no real secret has, to compare against when the prefix is unknown. */
export const DUMMY_DIGEST = "0".repeat(64);

/** Organisation keys are `cr_live_`; USER and PARTNER keys are `crun_`. */
export function keyFamilyForKind(kind: "ORG" | "USER" | "PARTNER"): KeyFamily {
  return kind === "ORG" ? "cr_live" : "crun";
}
