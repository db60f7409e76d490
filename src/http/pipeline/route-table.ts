import { tryDecodeURIComponent } from "hono/utils/url";

/** A path's parameters, decoded as Hono decodes its own (`c.req.param()`). */
export type PathParams = Record<string, string>;

/** What a path resolves to: the entry registered for it and its decoded parameters. */
export interface RouteMatch<T> {
  entry: T;
  params: PathParams;
}

interface Pattern<T> {
  /** One item per path segment: the literal text, or null where a parameter goes. */
  segments: (string | null)[];
  /** Parameter names, in segment order. */
  names: string[];
  entry: T;
}

/**
 * The agent API's routes, looked up by path (every agent route is GET; the method is checked by
 * the caller). Paths use OpenAPI's syntax: `/api/agent/orgs/{orgId}/contacts/{id}`.
 *
 * Why not Hono's router: the agent API has static and parameter segments at the same place
 * (`/contacts/summary` beside `/contacts/{id}`), which Hono's RegExpRouter refuses, so the whole
 * application fell back to its TrieRouter, which walks every registered route's tree on each
 * request. Here a static path is one Map lookup and a parameterised one is compared against the
 * few patterns of its length.
 *
 * The first registered route that matches a path wins, as in Hono: `add` refuses a static path
 * an earlier pattern already answers, so looking static paths up first never changes the winner.
 */
export class RouteTable<T> {
  private readonly exact = new Map<string, T>();
  /** Patterns with parameters, by segment count, in registration order. */
  private readonly bySegmentCount = new Map<number, Pattern<T>[]>();

  add(path: string, entry: T): void {
    if (!path.startsWith("/")) throw new Error(`route path must start with "/": ${path}`);
    const parts = path.slice(1).split("/");
    const names: string[] = [];
    const segments = parts.map((part) => {
      const name = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(part)?.[1];
      if (name) {
        names.push(name);
        return null;
      }
      if (part === "" || part.includes("{") || part.includes("}")) {
        throw new Error(`unsupported route path segment "${part}" in ${path}`);
      }
      return part;
    });
    if (this.lookup(parts) !== undefined) throw new Error(`route ${path} is already answered`);
    if (names.length === 0) {
      this.exact.set(path, entry);
      return;
    }
    const list = this.bySegmentCount.get(segments.length) ?? [];
    list.push({ segments, names, entry });
    this.bySegmentCount.set(segments.length, list);
  }

  /** The route answering `path` (Hono's decoded `c.req.path`), if any. */
  match(path: string): RouteMatch<T> | undefined {
    const entry = this.exact.get(path);
    if (entry !== undefined) return { entry, params: {} };
    if (!path.startsWith("/")) return undefined;
    return this.lookup(path.slice(1).split("/"));
  }

  private lookup(parts: string[]): RouteMatch<T> | undefined {
    const exact = this.exact.get(`/${parts.join("/")}`);
    if (exact !== undefined) return { entry: exact, params: {} };
    const candidates = this.bySegmentCount.get(parts.length);
    if (!candidates) return undefined;
    for (const pattern of candidates) {
      const params = matchPattern(pattern, parts);
      if (params) return { entry: pattern.entry, params };
    }
    return undefined;
  }
}

function matchPattern<T>(pattern: Pattern<T>, parts: string[]): PathParams | undefined {
  const { segments, names } = pattern;
  let found = 0;
  const values: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const part = parts[i] as string;
    if (segment === null) {
      // A parameter is one non-empty segment (Hono's `:name`).
      if (part === "") return undefined;
      values.push(part);
      found++;
    } else if (segment !== part) {
      return undefined;
    }
  }
  const params: PathParams = {};
  for (let i = 0; i < found; i++) {
    const value = values[i] as string;
    params[names[i] as string] = value.includes("%") ? tryDecodeURIComponent(value) : value;
  }
  return params;
}
