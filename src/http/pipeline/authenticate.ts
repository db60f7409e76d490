import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { bodyWithId } from "../request-id.ts";

/**
 * The one 401 body. Every cause (no header, another scheme, a malformed or mistyped key, an
 * unknown prefix, a wrong secret, a revoked key) answers exactly these bytes and headers, so a
 * response never tells whether a prefix exists.
 */
export const UNAUTHORIZED_BODY = '{"error":"unauthorized"}';

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** The token of an `Authorization: Bearer <token>` header, or "" for anything else. */
export function bearerToken(header: string | undefined): string {
  if (!header || header.length > 512) return "";
  return BEARER.exec(header)?.[1] ?? "";
}

/** The 401 answer (see UNAUTHORIZED_BODY). */
export function unauthorized(c: Context<AppEnv>): Response {
  return bodyWithId(c, UNAUTHORIZED_BODY, 401, {
    "Content-Type": "application/json",
    "WWW-Authenticate": 'Bearer realm="agent-api"',
  });
}
