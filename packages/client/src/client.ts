import createFetchClient, { type Client as FetchClient } from "openapi-fetch";
import {
  ApiError,
  CashRunwayError,
  ConnectionError,
  errorBodyOf,
  retryAfterSeconds,
} from "./errors.ts";
import type { paths } from "./schema.ts";

/** Where the client goes when neither `baseUrl` nor CASHRUNWAY_URL says otherwise (`npm start`). */
export const DEFAULT_BASE_URL = "http://127.0.0.1:3000";

/** This package's version, sent in `User-Agent`. */
export const CLIENT_VERSION = "0.1.0";

type AgentPaths = Omit<paths, "/api/agent/openapi.json">;
/** Every agent endpoint's path, flat (`/api/agent/invoices`) or nested (`/api/agent/orgs/{orgId}/…`). */
export type AgentPath = keyof AgentPaths & string;
type Operation<P extends AgentPath> = AgentPaths[P]["get"];

/** The 200 body of an endpoint. */
export type ResponseBody<P extends AgentPath> =
  Operation<P> extends {
    responses: { 200: { content: { "application/json": infer B } } };
  }
    ? B
    : never;

/** The query parameters of an endpoint. */
export type QueryOf<P extends AgentPath> =
  Operation<P> extends {
    parameters: { query?: infer Q };
  }
    ? NonNullable<Q>
    : never;

type RawPathParams<P extends AgentPath> =
  Operation<P> extends { parameters: { path: infer T } } ? T : Record<never, never>;

/** The path parameters of an endpoint other than `orgId` (which `orgId` below supplies). */
export type PathParamsOf<P extends AgentPath> = Omit<RawPathParams<P>, "orgId">;

export interface RequestOptions<P extends AgentPath> {
  query?: QueryOf<P>;
  /** The organisation to read (a key reaching several must name one); default: the client's. */
  orgId?: string;
  signal?: AbortSignal;
}

/** The options of `get(path, options)`: required when the path has parameters (`{id}`). */
export type RequestArgs<P extends AgentPath> = keyof PathParamsOf<P> extends never
  ? [options?: RequestOptions<P>]
  : [options: RequestOptions<P> & { path: PathParamsOf<P> }];

/** Retry of 429 answers after `Retry-After`; `false` turns it off. */
export interface RetryOptions {
  /** Retries after the first answer (default 2). */
  maxRetries?: number;
  /**
   * The longest `Retry-After` worth waiting for, in seconds (default 60). A longer one (spent
   * query credits free after minutes or hours) is thrown at once as an `ApiError`.
   */
  maxWaitSeconds?: number;
}

export interface ClientOptions {
  /** The API key, `cr_live_…` or `crun_…`. */
  token: string;
  /** The service's origin, e.g. `https://runway.example.com` (default http://127.0.0.1:3000). */
  baseUrl?: string;
  /**
   * Default organisation: every request goes to `/api/agent/orgs/{orgId}/…`. Needed by a key
   * that reaches several organisations (`GET /api/agent/orgs` lists them).
   */
  orgId?: string;
  /** 429 retry after `Retry-After` (default on: 2 retries, waits up to 60 s). */
  retry?: RetryOptions | false;
  /** Timeout of each attempt in milliseconds (default 30,000); a retry's wait is not counted. */
  timeoutMs?: number;
  /** A `fetch` to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** Extra `User-Agent` product, e.g. `my-agent/1.2`. */
  userAgent?: string;
}

/** The list endpoints and the member holding their rows. */
export const LIST_ITEMS = {
  "/api/agent/invoices": "invoices",
  "/api/agent/bills": "bills",
  "/api/agent/credit-notes": "creditNotes",
  "/api/agent/purchase-orders": "purchaseOrders",
  "/api/agent/contacts": "contacts",
} as const;

/** A list endpoint (cursor-paged). */
export type ListPath = keyof typeof LIST_ITEMS;
/** One row of a list endpoint. */
export type ListItem<P extends ListPath> = ResponseBody<P>[(typeof LIST_ITEMS)[P] &
  keyof ResponseBody<P>] extends (infer R)[]
  ? R
  : never;

const PREFIX = "/api/agent/";
const ORG_PREFIX = "/api/agent/orgs/{orgId}/";
/** The only flat route without a nested form: it lists the organisations themselves. */
const KEY_ROUTES = new Set<string>(["/api/agent/orgs"]);

/**
 * A client of the Cash Runway agent API, typed from its OpenAPI document.
 *
 * ```ts
 * const runway = new CashRunwayClient({ token: process.env.CASHRUNWAY_TOKEN! });
 * const summary = await runway.get("/api/agent/revenue/summary", { query: { topN: 5 } });
 * for await (const invoice of runway.items("/api/agent/invoices", { query: { status: "AUTHORISED" } })) {}
 * ```
 *
 * Errors are thrown: `ApiError` (the API's `error` code, status, request id, retry hint) and
 * `ConnectionError` (no answer, or not the API's).
 */
export class CashRunwayClient {
  /** The openapi-fetch client underneath, for callers who want its `{ data, error }` style. */
  readonly raw: FetchClient<paths>;
  readonly baseUrl: string;
  readonly orgId: string | undefined;
  private readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    if (!options.token) throw new CashRunwayError("a token is required (cr_live_… or crun_…)");
    this.options = options;
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.orgId = options.orgId;
    const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
    this.raw = createFetchClient<paths>({
      baseUrl: this.baseUrl,
      headers: {
        Authorization: `Bearer ${options.token}`,
        Accept: "application/json",
        "User-Agent": [options.userAgent, `cashrunway-client/${CLIENT_VERSION}`]
          .filter(Boolean)
          .join(" "),
      },
      fetch: attempts(baseFetch, options.retry ?? {}, options.timeoutMs ?? 30_000),
    });
  }

  /** The same client reading another organisation (`/api/agent/orgs/{orgId}/…`). */
  forOrg(orgId: string): CashRunwayClient {
    return new CashRunwayClient({ ...this.options, orgId });
  }

  /**
   * `GET path`: the 200 body, typed from the document; throws `ApiError` on an error status.
   * A flat path goes to its nested form when an organisation is chosen (here or on the client).
   */
  async get<P extends AgentPath>(path: P, ...[options]: RequestArgs<P>): Promise<ResponseBody<P>> {
    const opts = (options ?? {}) as RequestOptions<P> & { path?: Record<string, string> };
    const orgId = opts.orgId ?? this.orgId;
    let target: string = path;
    const pathParams: Record<string, string> = { ...(opts.path ?? {}) };
    if (path.includes("{orgId}")) {
      if (!orgId) throw new CashRunwayError(`${path} needs an orgId (see GET /api/agent/orgs)`);
      pathParams.orgId = orgId;
    } else if (orgId && !KEY_ROUTES.has(path)) {
      target = `${ORG_PREFIX}${path.slice(PREFIX.length)}`;
      pathParams.orgId = orgId;
    }
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      // The path is one of the document's (checked by the type); openapi-fetch's per-path
      // overloads cannot be chosen for a path known only as a type parameter.
      result = await this.raw.GET(
        target as never,
        {
          params: { path: pathParams, query: opts.query },
          signal: opts.signal,
        } as never,
      );
    } catch (err) {
      if (err instanceof CashRunwayError) throw err;
      throw new ConnectionError(
        `GET ${this.baseUrl}${target}: ${err instanceof Error ? err.message : String(err)}`,
        `${this.baseUrl}${target}`,
        { cause: err },
      );
    }
    const { response } = result;
    if (!response.ok) {
      const body =
        result.error && typeof result.error === "object"
          ? errorBodyOf(response.status, JSON.stringify(result.error))
          : errorBodyOf(response.status, String(result.error ?? ""));
      throw new ApiError(response.status, body, response.headers);
    }
    if (result.data === undefined || result.data === null || typeof result.data !== "object") {
      throw new ConnectionError(
        `GET ${this.baseUrl}${target} answered ${response.status} without a JSON body`,
        `${this.baseUrl}${target}`,
      );
    }
    return result.data as ResponseBody<P>;
  }

  /**
   * Every page of a list, following `nextCursor` until it is null. Each page is one request
   * (and one query credit); the query's filters stay the same throughout.
   */
  async *pages<P extends ListPath>(
    path: P,
    options: RequestOptions<P> = {},
  ): AsyncGenerator<ResponseBody<P>, void, undefined> {
    const query = { ...(options.query ?? {}) } as Record<string, unknown>;
    if (query.autoPaginate) {
      throw new CashRunwayError(
        "pages() follows cursors; autoPaginate returns one response: use get()",
      );
    }
    for (;;) {
      const page = (await this.get(path as ListPath, { ...options, query } as never)) as Awaited<
        ResponseBody<P>
      >;
      yield page;
      const next = (page as { nextCursor: string | null }).nextCursor;
      if (!next) return;
      query.cursor = next;
    }
  }

  /** Every row of a list, page after page (see `pages`). */
  async *items<P extends ListPath>(
    path: P,
    options: RequestOptions<P> = {},
  ): AsyncGenerator<ListItem<P>, void, undefined> {
    const member = LIST_ITEMS[path];
    for await (const page of this.pages(path, options)) {
      yield* (page as Record<string, unknown>)[member] as ListItem<P>[];
    }
  }
}

/** `new CashRunwayClient(options)`. */
export function createClient(options: ClientOptions): CashRunwayClient {
  return new CashRunwayClient(options);
}

/**
 * A fetch that gives each attempt `timeoutMs`, and answers a 429 by waiting `Retry-After` and
 * asking again, at most `maxRetries` times and only when the wait is at most `maxWaitSeconds`;
 * any other answer is returned as is. The API's 429 always carries `Retry-After`: the burst cap
 * frees within a minute, while spent query credits may take hours, which is not worth blocking a
 * caller for.
 */
function attempts(
  baseFetch: (input: Request) => Promise<Response>,
  retry: RetryOptions | false,
  timeoutMs: number,
): (input: Request) => Promise<Response> {
  const maxRetries = retry === false ? 0 : (retry.maxRetries ?? 2);
  const maxWaitSeconds = retry === false ? 0 : (retry.maxWaitSeconds ?? 60);
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]);
      const response = await baseFetch(new Request(request, { signal }));
      if (response.status !== 429 || attempt >= maxRetries) return response;
      const wait = retryAfterSeconds(response.headers);
      if (wait === undefined || wait > maxWaitSeconds) return response;
      await response.body?.cancel();
      await sleep(wait * 1000, request.signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
