import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { type Answer, errorBody } from "./errors.ts";
import { jsonWithId } from "./request-id.ts";

/**
 * Which methods a path is served for, from the application's registered routes: the answer to a
 * request whose path exists but whose method does not (405 with `Allow`, instead of 404).
 */

/** A registered route as Hono lists it (`app.routes`). */
export interface RegisteredRoute {
  method: string;
  path: string;
}

/**
 * Compiles the routes once; the returned function gives the methods served at a concrete path
 * (with `HEAD` wherever `GET` is, as Hono answers it), or an empty list for an unknown path.
 * Middleware (`ALL`) is not a route. Path syntax: Hono's `:name` segments and a trailing `*`.
 */
export function allowedMethodsOf(routes: readonly RegisteredRoute[]): (path: string) => string[] {
  const byPattern = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const { method, path } of routes) {
    if (method === "ALL") continue;
    let entry = byPattern.get(path);
    if (!entry) {
      entry = { pattern: patternOf(path), methods: new Set() };
      byPattern.set(path, entry);
    }
    entry.methods.add(method);
    if (method === "GET") entry.methods.add("HEAD");
  }
  const entries = [...byPattern.values()];
  return (path) => {
    const methods = new Set<string>();
    for (const { pattern, methods: served } of entries) {
      if (pattern.test(path)) for (const m of served) methods.add(m);
    }
    return [...methods].sort();
  };
}

function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => {
      if (segment === "*") return ".*";
      if (segment.startsWith(":")) return "[^/]+";
      return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    })
    .join("/");
  return new RegExp(`^${source}$`);
}

/**
 * The answer for a request no route serves: 405 `method_not_allowed` with `Allow` when the path
 * is served for other methods (`allowed`, from `allowedMethodsOf`), else 404 `not_found`.
 */
export function notServed(c: Context<AppEnv>, allowed: readonly string[]): Response {
  const answer = notServedAnswer(c.req.method, allowed);
  return jsonWithId(c, answer.body, answer.status, answer.headers);
}

/** `notServed` before it is a response (the agent pipeline's answer). */
export function notServedAnswer(method: string, allowed: readonly string[]): Answer {
  if (allowed.length > 0 && !allowed.includes(method)) {
    return {
      status: 405,
      body: errorBody(
        "method_not_allowed",
        `${method} is not served here; use ${allowed.join(" or ")}.`,
      ),
      headers: { Allow: allowed.join(", ") },
    };
  }
  return { status: 404, body: errorBody("not_found", "No such route."), headers: {} };
}
