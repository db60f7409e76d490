import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";
import { KEY_ALPHABET } from "../../domain/keys.ts";
import { InvalidParameterError } from "../errors.ts";

/**
 * Password hashing for the settings screen: scrypt (node:crypto) with a 16-byte random salt and
 * a 32-byte output, stored as `scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>`. The parameters
 * travel with the hash, so they can be raised later without invalidating stored passwords.
 *
 * N = 2^15, r = 8, p = 1 is the OWASP-recommended minimum for scrypt: 32 MiB and roughly 50 to
 * 100 ms per hash on a server core, which makes offline guessing of a leaked hash expensive.
 */
export const SCRYPT_PARAMS = { log2N: 15, r: 8, p: 1 } as const;

const SALT_BYTES = 16;
const HASH_BYTES = 32;

/** Shortest accepted password; long passphrases beat complexity rules. */
export const MIN_PASSWORD_LENGTH = 12;
/** Longest accepted password: bounds the work an anonymous sign-in request can cause. */
export const MAX_PASSWORD_LENGTH = 256;

/** Hard ceiling on parameters read back from a stored hash, so a tampered row cannot exhaust memory. */
const MAX_LOG2N = 20;

function scryptAsync(
  password: string,
  salt: Buffer,
  length: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, length, options, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

function optionsFor(log2N: number, r: number, p: number): ScryptOptions {
  const N = 2 ** log2N;
  // Node's default maxmem (32 MiB) is exactly 128*N*r at N=2^15, r=8 and refuses it: allow 2x.
  return { N, r, p, maxmem: 256 * N * r * p };
}

/** Refuses a new password that is too short or too long (the message names the rule). */
export function validateNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new InvalidParameterError(
      "password",
      `password: at least ${MIN_PASSWORD_LENGTH} characters`,
    );
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new InvalidParameterError(
      "password",
      `password: at most ${MAX_PASSWORD_LENGTH} characters`,
    );
  }
}

/** Hashes a password with scrypt and a fresh salt (async: the event loop keeps serving). */
export async function hashPassword(password: string): Promise<string> {
  const { log2N, r, p } = SCRYPT_PARAMS;
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(password, salt, HASH_BYTES, optionsFor(log2N, r, p));
  return `scrypt$${log2N}$${r}$${p}$${salt.toString("base64")}$${hash.toString("base64")}`;
}

/**
 * True when `password` matches `stored`. A malformed or foreign stored value never matches.
 * The comparison is constant-time.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (password.length > MAX_PASSWORD_LENGTH) return false;
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const log2N = Number(n);
  const rr = Number(r);
  const pp = Number(p);
  if (
    !Number.isInteger(log2N) ||
    !Number.isInteger(rr) ||
    !Number.isInteger(pp) ||
    log2N < 1 ||
    log2N > MAX_LOG2N ||
    rr < 1 ||
    rr > 32 ||
    pp < 1 ||
    pp > 16
  ) {
    return false;
  }
  const salt = Buffer.from(saltB64 ?? "", "base64");
  const expected = Buffer.from(hashB64 ?? "", "base64");
  if (salt.length === 0 || expected.length === 0) return false;
  const actual = await scryptAsync(password, salt, expected.length, optionsFor(log2N, rr, pp));
  return timingSafeEqual(actual, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * A valid hash of a random password nobody knows. Sign-in verifies against it when the email
 * is unknown or has no password, so the answer takes as long as for a real account and timing
 * does not reveal which emails exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString("base64"));
  return dummyHash;
}

/**
 * A random password of 4 groups of 5 characters (100 bits) from the API-key alphabet (no
 * look-alike letters), e.g. `k3v9p-…`; for the demo owner and `password set` without stdin.
 */
export function generatePassword(): string {
  const bytes = randomBytes(20);
  let out = "";
  for (let i = 0; i < 20; i++) {
    if (i > 0 && i % 5 === 0) out += "-";
    out += KEY_ALPHABET[(bytes[i] ?? 0) & 31];
  }
  return out;
}
