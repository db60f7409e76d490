import type { Context } from "hono";
import { serializeReusing } from "../services/json-reuse.ts";
import type { AppEnv } from "./env.ts";

/**
 * Marks responses built with the request id among their headers (see `bodyWithId`). A property
 * rather than a WeakSet: a WeakSet entry per response is a weak (ephemeron) reference the garbage
 * collector has to process, on every request.
 */
const STAMPED = Symbol("carriesRequestId");

/**
 * A JSON response that carries `X-Request-Id` (and `headers`) from the start, as one plain header
 * record: what `c.json(body, status, headers)` answers, without its cost on the hot path. The
 * body is serialised by `serializeReusing` (JSON.stringify's bytes, reusing the bytes kept for
 * values that never change, such as a stored forecast's weeks).
 */
export function jsonWithId(
  c: Context<AppEnv>,
  body: unknown,
  status: number,
  headers: Record<string, string> = {},
  /** JSON members (`"a":1,"b":2`) to append to a body that serialises to an object. */
  members?: string,
): Response {
  const json = serializeReusing(body);
  return stampedResponse(members ? appendMembers(json, members) : json, status, {
    "Content-Type": "application/json",
    ...headers,
    "X-Request-Id": c.get("requestId"),
  });
}

/** An object's JSON (`{…}`, text or UTF-8) with `members` added as its last members. */
export function appendMembers(json: string | Uint8Array, members: string): string | Uint8Array {
  if (typeof json === "string") {
    return json === "{}" ? `{${members}}` : `${json.slice(0, -1)},${members}}`;
  }
  const empty = json.byteLength === 2;
  const tail = Buffer.from(`${empty ? "" : ","}${members}}`, "utf8");
  const out = new Uint8Array(json.byteLength - 1 + tail.byteLength);
  out.set(json.subarray(0, json.byteLength - 1), 0);
  out.set(tail, json.byteLength - 1);
  return out;
}

/**
 * Same as `jsonWithId` for a body already serialised.
 *
 * Built with `new Response` rather than `c.body()`: given more than one header, Hono copies them
 * into a `Headers` object, which @hono/node-server then iterates (sorted) back into a record
 * before writing. A plain record goes to the socket as it is. The agent routes add the request
 * id and the metering headers to every success, so this ran on every request (measured in
 * docs/benchmarks.md, "Stop 6"). Nothing in the agent pipeline sets headers with `c.header()`
 * before the response is built, so there is nothing of Hono's to merge.
 */
export function bodyWithId(
  c: Context<AppEnv>,
  body: string | Uint8Array,
  status: number,
  headers: Record<string, string>,
): Response {
  return stampedResponse(body, status, { ...headers, "X-Request-Id": c.get("requestId") });
}

/** The response, marked as carrying its request id (`headers` must hold it). */
function stampedResponse(
  body: string | Uint8Array,
  status: number,
  headers: Record<string, string>,
): Response {
  const res = new Response(body, { status, headers });
  (res as Response & { [STAMPED]?: true })[STAMPED] = true;
  return res;
}

/** Whether the response already carries the request id (built by one of the helpers above). */
export function carriesRequestId(res: Response): boolean {
  return (res as Response & { [STAMPED]?: true })[STAMPED] === true;
}
