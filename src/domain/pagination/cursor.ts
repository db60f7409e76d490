import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/*
 * Keyset cursors for the agent API's lists.
 *
 * A cursor names a position in a list's stable order: the sort value and the id of the last row
 * of the page it came with (rows before redaction, so that pages line up for every key). It is
 * bound to what it was issued for: the resource, the organisation and a hash of the filters.
 *
 * On the wire it is opaque base64url: AES-256-GCM over a small JSON payload (12-byte nonce,
 * ciphertext, 16-byte tag). The tag makes any change detectable (a tampered cursor fails to
 * open), and the encryption keeps the position private: the last row of a page may be one the
 * key may not see (a sensitive contact's invoice), and its date and id must not be readable from
 * the cursor.
 */

/** Where the next page starts: strictly after this (sort value, id) in the list's order. */
export interface CursorPosition {
  /** The sort value of the last row of the page: a date, an instant or a decimal; null sorts first. */
  key: string | null;
  /** The service id of that row (the tie-break). */
  id: string;
}

/** What a cursor is bound to; all three must match when it comes back. */
export interface CursorBinding {
  /** The list, e.g. `invoices` or `contacts:revenue_desc`. */
  resource: string;
  orgId: string;
  /** `filterHash()` of the normalised filters the cursor was issued for. */
  filterHash: string;
}

/** A cursor that cannot be used here: malformed, tampered, foreign or issued for other filters. */
export class CursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CursorError";
  }
}

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Longer than any cursor we issue; anything longer is refused before decoding. */
export const MAX_CURSOR_LENGTH = 1024;

/** The 32-byte AES key that seals and opens cursors (`cursorKey()`). */
export type CursorKey = Buffer;

/** The 32-byte AES key for a secret (any string; hashed so that its length does not matter). */
export function cursorKey(secret: string): CursorKey {
  return createHash("sha256").update(`cashrunway/cursor/v${VERSION}\0${secret}`).digest();
}

/**
 * A short stable hash of a list's normalised filters. Callers pass values already normalised
 * (sorted status lists, absent filters as null), so equal filters hash equally.
 */
export function filterHash(filters: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(filters).sort();
  const canonical = JSON.stringify(keys.map((k) => [k, filters[k] ?? null]));
  return createHash("sha256").update(canonical).digest("base64url").slice(0, 22);
}

interface Payload {
  v: number;
  r: string;
  o: string;
  f: string;
  k: string | null;
  i: string;
}

/** Encodes a position for a binding; `key` is from `cursorKey()`. */
export function encodeCursor(
  position: CursorPosition,
  binding: CursorBinding,
  key: Buffer,
): string {
  const payload: Payload = {
    v: VERSION,
    r: binding.resource,
    o: binding.orgId,
    f: binding.filterHash,
    k: position.key,
    i: position.id,
  };
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const body = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url");
}

/**
 * Opens a cursor and checks its binding.
 * @throws CursorError when it is not one of ours, was changed, or was issued for another
 *   resource, organisation or set of filters.
 */
export function decodeCursor(text: string, binding: CursorBinding, key: Buffer): CursorPosition {
  if (text.length === 0 || text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) {
    throw new CursorError("cursor is not a cursor this API issued");
  }
  const bytes = Buffer.from(text, "base64url");
  if (bytes.length <= NONCE_BYTES + TAG_BYTES) {
    throw new CursorError("cursor is not a cursor this API issued");
  }
  let json: string;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    json = Buffer.concat([
      decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new CursorError("cursor is not a cursor this API issued, or was changed");
  }
  const payload = parsePayload(json);
  if (payload.r !== binding.resource) {
    throw new CursorError("cursor was issued by another list");
  }
  if (payload.o !== binding.orgId) {
    throw new CursorError("cursor was issued for another organisation");
  }
  if (payload.f !== binding.filterHash) {
    throw new CursorError(
      "cursor was issued for other filters: repeat the request's filters (status, contactId, " +
        "dateFrom, dateTo, type, sort) unchanged while paging",
    );
  }
  return { key: payload.k, id: payload.i };
}

function parsePayload(json: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new CursorError("cursor is not a cursor this API issued");
  }
  const p = value as Partial<Payload> | null;
  if (
    typeof p !== "object" ||
    p === null ||
    p.v !== VERSION ||
    typeof p.r !== "string" ||
    typeof p.o !== "string" ||
    typeof p.f !== "string" ||
    !(typeof p.k === "string" || p.k === null) ||
    typeof p.i !== "string"
  ) {
    throw new CursorError("cursor is not a cursor this API issued");
  }
  return { v: p.v, r: p.r, o: p.o, f: p.f, k: p.k, i: p.i };
}
