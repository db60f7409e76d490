import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** 32 random bytes, base64url (43 characters): session tokens and CSRF tokens. */
export function newRandomToken(): string {
  return randomBytes(32).toString("base64url");
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** True for something shaped like `newRandomToken()`: anything else is refused before a read. */
export function isWellFormedToken(value: string | undefined | null): value is string {
  return typeof value === "string" && TOKEN_PATTERN.test(value);
}

/** SHA-256 hex of a token: what the database keeps instead of the token. */
export function digestToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Constant-time equality of two tokens (CSRF: the form field against the session's token, or
 * against the sign-in form's cookie). A missing or differently sized value never matches.
 */
export function tokensMatch(expected: string, presented: string | undefined | null): boolean {
  if (typeof presented !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  if (a.length !== b.length || a.length === 0) return false;
  return timingSafeEqual(a, b);
}
