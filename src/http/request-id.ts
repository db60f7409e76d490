import type { Context } from "hono";
import { serializeReusing } from "../services/json-reuse.ts";
import type { AppEnv } from "./env.ts";

/**
 * A JSON response that carries `X-Request-Id` (and `headers`; the caller cannot replace the id).
 * The body is serialised by `serializeReusing` (JSON.stringify's bytes, reusing the bytes kept
 * for values that never change, such as a stored forecast's weeks).
 */
export function jsonWithId(
  c: Context<AppEnv>,
  body: unknown,
  status: number,
  headers: Record<string, string> = {},
): Response {
  return jsonResponse(body, status, headers, c.get("requestId"));
}

/** `jsonWithId` without a Hono context: what a transport makes of an answer. */
function jsonResponse(
  body: unknown,
  status: number,
  headers: Record<string, string>,
  requestId: string,
): Response {
  return new Response(serializeReusing(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers, "X-Request-Id": requestId },
  });
}
