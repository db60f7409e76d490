import type { MiddlewareHandler } from "hono";
import type { Db } from "../../db/client.ts";
import { authenticateKey } from "../../services/keys/authenticate-key.ts";
import type { VerifiedKeyCache } from "../../services/keys/verified-key-cache.ts";
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

/**
 * Authenticates every request under the agent prefix except `publicPaths` (the OpenAPI
 * document). On success sets `key`; otherwise answers 401 without calling further handlers.
 */
export function authenticate(
  db: Db,
  opts: { publicPaths: readonly string[]; cache?: VerifiedKeyCache | undefined },
): MiddlewareHandler<AppEnv> {
  const publicPaths = new Set(opts.publicPaths);
  return async (c, next) => {
    if (publicPaths.has(c.req.path)) return next();
    const key = await authenticateKey(db, bearerToken(c.req.header("authorization")), opts.cache);
    if (!key) {
      return bodyWithId(c, UNAUTHORIZED_BODY, 401, {
        "Content-Type": "application/json",
        "WWW-Authenticate": 'Bearer realm="agent-api"',
      });
    }
    c.set("key", key);
    await next();
  };
}
