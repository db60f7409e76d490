import { randomUUID } from "node:crypto";
import { type Context, Hono } from "hono";
import { FakeIdentity } from "./identity.ts";
import {
  FAKE_COLLECTIONS,
  type FakeCollection,
  FakeLedgerStore,
  type FakeTenant,
  msDate,
  type WireRecord,
} from "./store.ts";

/*
 * The contract fake of the ledger (Xero): identity endpoints and the accounting endpoints the
 * sync reads, on the same paths as Xero's hosts, so pointing LEDGER_AUTHORIZE_URL,
 * LEDGER_TOKEN_URL, LEDGER_REVOKE_URL and LEDGER_API_URL at it is all a test or a demo needs:
 *   GET  /identity/connect/authorize   consent page ("Allow access" redirects with a code)
 *   POST /connect/token                authorization_code and refresh_token grants (HTTP Basic)
 *   POST /connect/revocation           revokes a refresh token's grant
 *   GET  /connections, DELETE /connections/{id}
 *   GET  /api.xro/2.0/{Organisation,Accounts,Contacts,Invoices,CreditNotes,PurchaseOrders,
 *        Payments,BankTransactions,Reports/BankSummary,Reports/BalanceSheet}
 * The behaviour the yaml does not describe is written by hand after mapping.md §2 and §5:
 * paging, If-Modified-Since, a `where` subset, line items only on paged reads, the rate limits
 * with their headers and 429 + Retry-After, and fault switches for tests.
 */

export interface FakeLimits {
  /** Calls in flight per tenant (Xero: 5). */
  concurrent: number;
  /** Calls per window per tenant (Xero: 60 a minute). */
  perWindow: number;
  /** The window of `perWindow`, ms (Xero: 60,000; tests shorten it). */
  windowMs: number;
  /** Calls per UTC day per tenant (Xero: 5,000). */
  perDay: number;
}

export interface FakeFaults {
  /** The next N accounting calls answer `serverErrorStatus`. */
  serverErrors: number;
  serverErrorStatus: 500 | 502 | 503 | 504;
  /** Every accounting call waits this long before answering. */
  slowMs: number;
  /** The next N accounting calls answer 429 (minute) with Retry-After, as under a storm. */
  rateLimitStorm: number;
  /** A record served with a field replaced by a value the contract does not allow. */
  malformed: { collection: FakeCollection; id: string; field: string; value: unknown } | null;
  /** The consent page refuses (redirects with error=access_denied). */
  denyConsent: boolean;
}

export interface FakeStats {
  /** Accounting and /connections calls received, answered or refused. */
  calls: number;
  /** Calls per path, e.g. `GET /api.xro/2.0/Invoices`. */
  byPath: Map<string, number>;
  /** Calls answered 429. */
  rateLimited: number;
  /** 429s by the limit the call broke (storm faults count as `minute`). */
  refusals: { concurrent: number; minute: number; day: number };
  /** Most calls of one tenant in flight at once, counting the one arriving (refused or not). */
  maxConcurrent: number;
  /** Most calls of one tenant arriving within one window, refused ones included. */
  maxPerWindow: number;
  /** Calls to the token endpoint with each grant type. */
  tokenCalls: { authorization_code: number; refresh_token: number };
  revocations: number;
}

export interface FakeLedgerOptions {
  store?: FakeLedgerStore;
  clientId?: string;
  clientSecret?: string;
  accessTokenSeconds?: number;
  refreshGraceMs?: number;
  limits?: Partial<FakeLimits>;
  /** Tenants a consent grants; default every tenant of the store. */
  consentTenantIds?: () => string[];
  now?: () => number;
}

export interface FakeLedger {
  app: Hono;
  store: FakeLedgerStore;
  identity: FakeIdentity;
  faults: FakeFaults;
  stats: FakeStats;
  limits: FakeLimits;
  /** Clears the statistics and the rate-limit windows (not the data). */
  resetStats(): void;
}

export const FAKE_CLIENT_ID = "cashrunway-fake-client";
export const FAKE_CLIENT_SECRET = "cashrunway-fake-secret";
export const XERO_LIMITS: FakeLimits = {
  concurrent: 5,
  perWindow: 60,
  windowMs: 60_000,
  perDay: 5_000,
};
const APP_PER_MINUTE = 10_000;

const API = "/api.xro/2.0";
/** Xero's default and largest page sizes (mapping.md §2.2). */
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
/** Collections whose line items come only on paged reads or reads by id. */
const LINES_ONLY_WHEN_PAGED: ReadonlySet<FakeCollection> = new Set(["Invoices", "CreditNotes"]);

interface TenantWindow {
  inFlight: number;
  starts: number[];
  /** Every arrival in the window, refused ones included: what the client sent. */
  arrivals: number[];
  day: string;
  dayCount: number;
}

export function createFakeLedger(options: FakeLedgerOptions = {}): FakeLedger {
  const now = options.now ?? Date.now;
  const store = options.store ?? new FakeLedgerStore(now);
  const limits: FakeLimits = { ...XERO_LIMITS, ...options.limits };
  const identity = new FakeIdentity({
    clientId: options.clientId ?? FAKE_CLIENT_ID,
    clientSecret: options.clientSecret ?? FAKE_CLIENT_SECRET,
    accessTokenSeconds: options.accessTokenSeconds ?? 1800,
    refreshGraceMs: options.refreshGraceMs ?? 30 * 60_000,
    now,
  });
  const faults: FakeFaults = {
    serverErrors: 0,
    serverErrorStatus: 503,
    slowMs: 0,
    rateLimitStorm: 0,
    malformed: null,
    denyConsent: false,
  };
  const stats = emptyStats();
  let windows = new Map<string, TenantWindow>();
  const consentTenants = options.consentTenantIds ?? (() => [...store.tenants.keys()]);

  const app = new Hono();

  // ---- identity ---------------------------------------------------------------------------

  app.get("/identity/connect/authorize", (c) => {
    const q = c.req.query();
    if (q.response_type !== "code" || q.client_id !== (options.clientId ?? FAKE_CLIENT_ID)) {
      return c.text("unauthorized_client", 400);
    }
    if (!q.redirect_uri) return c.text("redirect_uri is required", 400);
    if (q.code_challenge && q.code_challenge_method !== "S256") {
      return c.text("code_challenge_method must be S256", 400);
    }
    const target = new URL(q.redirect_uri);
    if (faults.denyConsent) {
      target.searchParams.set("error", "access_denied");
    } else {
      const code = identity.approve({
        clientId: q.client_id,
        redirectUri: q.redirect_uri,
        scope: q.scope ?? "",
        codeChallenge: q.code_challenge,
        tenantIds: consentTenants(),
      });
      target.searchParams.set("code", code);
      target.searchParams.set("scope", q.scope ?? "");
    }
    if (q.state) target.searchParams.set("state", q.state);
    const href = escapeHtml(target.toString());
    return c.html(
      `<!doctype html><html><head><title>Fake ledger: allow access</title></head><body>` +
        `<h1>Cash Runway's fake ledger</h1><p>The app asks to read: ${escapeHtml(q.scope ?? "")}</p>` +
        `<p><a id="allow" href="${href}">Allow access</a></p></body></html>`,
    );
  });

  app.post("/connect/token", async (c) => {
    if (!identity.checkClient(c.req.header("authorization"))) {
      return c.json({ error: "invalid_client" }, 401);
    }
    const form = await c.req.parseBody();
    const grantType = String(form.grant_type ?? "");
    let result: ReturnType<FakeIdentity["refresh"]>;
    if (grantType === "authorization_code") {
      stats.tokenCalls.authorization_code += 1;
      result = identity.exchangeCode({
        code: String(form.code ?? ""),
        redirectUri: String(form.redirect_uri ?? ""),
        codeVerifier: form.code_verifier === undefined ? undefined : String(form.code_verifier),
      });
    } else if (grantType === "refresh_token") {
      stats.tokenCalls.refresh_token += 1;
      result = identity.refresh(String(form.refresh_token ?? ""));
    } else {
      return c.json({ error: "unsupported_grant_type" }, 400);
    }
    if (!result.ok) return c.json({ error: result.error }, result.status);
    return c.json(result.tokens);
  });

  app.post("/connect/revocation", async (c) => {
    if (!identity.checkClient(c.req.header("authorization"))) {
      return c.json({ error: "invalid_client" }, 401);
    }
    const form = await c.req.parseBody();
    stats.revocations += 1;
    identity.revoke(String(form.token ?? ""));
    return c.body(null, 200);
  });

  app.get("/connections", (c) => {
    count(c);
    const grant = identity.grantOf(bearer(c));
    if (!grant) return unauthorized(c);
    return c.json(
      [...grant.connections].flatMap(([id, tenantId]) => {
        const tenant = store.tenants.get(tenantId);
        if (!tenant) return [];
        return [
          {
            id,
            authEventId: grant.id,
            tenantId,
            tenantType: "ORGANISATION",
            tenantName: tenant.tenantName,
            createdDateUtc: new Date(grant.createdMs).toISOString(),
            updatedDateUtc: new Date(grant.createdMs).toISOString(),
          },
        ];
      }),
    );
  });

  app.delete("/connections/:id", (c) => {
    count(c);
    const grant = identity.grantOf(bearer(c));
    if (!grant) return unauthorized(c);
    if (!grant.connections.delete(c.req.param("id"))) {
      return c.json({ Title: "Not Found", Status: 404 }, 404);
    }
    return c.body(null, 204);
  });

  // ---- accounting ---------------------------------------------------------------------------

  app.use(`${API}/*`, async (c, next) => {
    count(c);
    const grant = identity.grantOf(bearer(c));
    if (!grant) return unauthorized(c);
    const tenantId = c.req.header("xero-tenant-id") ?? "";
    if (![...grant.connections.values()].includes(tenantId) || !store.tenants.has(tenantId)) {
      return c.json(
        { Type: null, Title: "Forbidden", Status: 403, Detail: "AuthenticationUnsuccessful" },
        403,
      );
    }
    const w = windowOf(tenantId);
    const t = now();
    while (w.starts.length > 0 && (w.starts[0] ?? 0) <= t - limits.windowMs) w.starts.shift();
    while (w.arrivals.length > 0 && (w.arrivals[0] ?? 0) <= t - limits.windowMs) w.arrivals.shift();
    w.arrivals.push(t);
    stats.maxPerWindow = Math.max(stats.maxPerWindow, w.arrivals.length);
    stats.maxConcurrent = Math.max(stats.maxConcurrent, w.inFlight + 1);
    const today = new Date(t).toISOString().slice(0, 10);
    if (w.day !== today) {
      w.day = today;
      w.dayCount = 0;
    }
    let problem: "concurrent" | "minute" | "day" | undefined;
    let retryAfterMs = 1000;
    if (w.dayCount >= limits.perDay) {
      problem = "day";
      retryAfterMs = Date.parse(`${today}T00:00:00Z`) + 86_400_000 - t;
    } else if (faults.rateLimitStorm > 0) {
      faults.rateLimitStorm -= 1;
      problem = "minute";
    } else if (w.starts.length >= limits.perWindow) {
      problem = "minute";
      retryAfterMs = (w.starts[0] ?? t) + limits.windowMs - t;
    } else if (w.inFlight >= limits.concurrent) {
      problem = "concurrent";
    }
    if (problem) {
      stats.rateLimited += 1;
      stats.refusals[problem] += 1;
      limitHeaders(c, w);
      c.header("Retry-After", String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
      c.header("X-Rate-Limit-Problem", problem);
      return c.json({ Title: "Too Many Requests", Status: 429, Detail: `${problem} limit` }, 429);
    }
    w.starts.push(t);
    w.dayCount += 1;
    w.inFlight += 1;
    try {
      if (faults.slowMs > 0) await new Promise((r) => setTimeout(r, faults.slowMs));
      limitHeaders(c, w);
      if (faults.serverErrors > 0) {
        faults.serverErrors -= 1;
        return c.json(
          { Title: "Service Unavailable", Status: faults.serverErrorStatus },
          faults.serverErrorStatus,
        );
      }
      if (!(c.req.header("accept") ?? "").includes("application/json")) {
        // Xero answers XML unless asked for JSON.
        return c.body("<Response><Status>OK</Status></Response>", 200, {
          "content-type": "text/xml; charset=utf-8",
        });
      }
      c.set("tenant" as never, store.tenant(tenantId) as never);
      await next();
    } finally {
      w.inFlight -= 1;
    }
  });

  app.get(`${API}/Organisation`, (c) => {
    const tenant = tenantOf(c);
    return c.json(envelope("Organisations", [tenant.organisation]));
  });

  for (const collection of Object.keys(FAKE_COLLECTIONS) as FakeCollection[]) {
    app.get(`${API}/${collection}`, (c) => serveCollection(c, collection));
    app.get(`${API}/${collection}/:id`, (c) => {
      const tenant = tenantOf(c);
      const record = tenant.collections[collection].get(c.req.param("id"));
      if (!record) return c.json({ Title: "Not Found", Status: 404 }, 404);
      return c.json(envelope(collection, [served(collection, record.body, true)]));
    });
  }

  app.get(`${API}/Reports/BankSummary`, (c) => {
    const tenant = tenantOf(c);
    return c.json(envelope("Reports", [tenant.bankSummary ?? emptyBankSummary(tenant)]));
  });

  app.get(`${API}/Reports/BalanceSheet`, (c) => {
    const tenant = tenantOf(c);
    const date = c.req.query("date");
    const limit = date ? Date.parse(`${date}T00:00:00Z`) : Number.POSITIVE_INFINITY;
    let best: WireRecord | undefined;
    let bestMs = Number.NEGATIVE_INFINITY;
    for (const report of tenant.balanceSheets) {
      const ms = Date.parse(`${String(report.ReportDate ?? "")} UTC`);
      if (!Number.isNaN(ms) && ms <= limit && ms > bestMs) {
        best = report;
        bestMs = ms;
      }
    }
    return c.json(envelope("Reports", best ? [best] : []));
  });

  function serveCollection(c: Context, collection: FakeCollection): Response {
    const tenant = tenantOf(c);
    const q = c.req.query();
    let filter: ((r: WireRecord) => boolean) | undefined;
    try {
      filter = q.where ? parseWhere(q.where) : undefined;
    } catch (e) {
      return c.json(
        { ErrorNumber: 16, Type: "QueryParseException", Message: (e as Error).message },
        400,
      );
    }
    const ims = c.req.header("if-modified-since");
    const since = ims ? parseIfModifiedSince(ims) : undefined;
    if (ims && since === undefined) {
      return c.json(
        { ErrorNumber: 14, Type: "ValidationException", Message: "If-Modified-Since" },
        400,
      );
    }
    const statuses = q.Statuses ? new Set(q.Statuses.split(",")) : undefined;
    const poStatus = collection === "PurchaseOrders" ? q.Status : undefined;
    const includeArchived = q.includeArchived === "true";
    const summaryOnly = q.summaryOnly === "true";
    const paged = q.page !== undefined;

    const rows = [...tenant.collections[collection].values()]
      .filter((r) => since === undefined || r.updatedMs > since)
      .filter((r) => !filter || filter(r.body))
      .filter((r) => !statuses || statuses.has(String(r.body.Status)))
      .filter((r) => !poStatus || r.body.Status === poStatus)
      .filter(
        (r) => collection !== "Contacts" || includeArchived || r.body.ContactStatus !== "ARCHIVED",
      )
      .sort((a, b) => a.updatedMs - b.updatedMs || a.seq - b.seq);

    let pageRows = rows;
    let pagination: Record<string, number> | undefined;
    if (paged) {
      const page = Math.max(1, Number.parseInt(q.page ?? "1", 10) || 1);
      const requested = Number.parseInt(q.pageSize ?? "", 10);
      const pageSize = Math.min(MAX_PAGE_SIZE, requested > 0 ? requested : DEFAULT_PAGE_SIZE);
      pageRows = rows.slice((page - 1) * pageSize, page * pageSize);
      pagination = {
        page,
        pageSize,
        pageCount: Math.ceil(rows.length / pageSize),
        itemCount: rows.length,
      };
    }
    const withLines = paged && !summaryOnly;
    const records = pageRows.map((r) => {
      let body = served(collection, r.body, withLines || !LINES_ONLY_WHEN_PAGED.has(collection));
      if (summaryOnly && collection === "Contacts") {
        const { Addresses: _a, Phones: _p, ContactPersons: _cp, ...rest } = body;
        body = rest;
      }
      return body;
    });
    return c.json({ ...envelope(collection, records), ...(pagination ? { pagination } : {}) });
  }

  function served(collection: FakeCollection, body: WireRecord, withLines: boolean): WireRecord {
    let out = body;
    if (!withLines && "LineItems" in out) {
      const { LineItems: _l, ...rest } = out;
      out = rest;
    }
    const m = faults.malformed;
    if (m && m.collection === collection && out[FAKE_COLLECTIONS[collection]] === m.id) {
      out = { ...out, [m.field]: m.value };
    }
    return out;
  }

  function envelope(key: string, records: unknown[]): Record<string, unknown> {
    return {
      Id: randomUUID(),
      Status: "OK",
      ProviderName: "Cash Runway fake ledger",
      DateTimeUTC: msDate(now()),
      [key]: records,
    };
  }

  function windowOf(tenantId: string): TenantWindow {
    let w = windows.get(tenantId);
    if (!w) {
      w = { inFlight: 0, starts: [], arrivals: [], day: "", dayCount: 0 };
      windows.set(tenantId, w);
    }
    return w;
  }

  function limitHeaders(c: Context, w: TenantWindow): void {
    let appMinute = 0;
    for (const other of windows.values()) appMinute += other.starts.length;
    c.header("X-MinLimit-Remaining", String(Math.max(0, limits.perWindow - w.starts.length)));
    c.header("X-DayLimit-Remaining", String(Math.max(0, limits.perDay - w.dayCount)));
    c.header("X-AppMinLimit-Remaining", String(Math.max(0, APP_PER_MINUTE - appMinute)));
  }

  function count(c: Context): void {
    stats.calls += 1;
    const key = `${c.req.method} ${c.req.path}`;
    stats.byPath.set(key, (stats.byPath.get(key) ?? 0) + 1);
  }

  return {
    app,
    store,
    identity,
    faults,
    stats,
    limits,
    resetStats() {
      Object.assign(stats, emptyStats());
      windows = new Map();
    },
  };
}

function emptyStats(): FakeStats {
  return {
    calls: 0,
    byPath: new Map(),
    rateLimited: 0,
    refusals: { concurrent: 0, minute: 0, day: 0 },
    maxConcurrent: 0,
    maxPerWindow: 0,
    tokenCalls: { authorization_code: 0, refresh_token: 0 },
    revocations: 0,
  };
}

function tenantOf(c: Context): FakeTenant {
  return c.get("tenant" as never) as FakeTenant;
}

function bearer(c: Context): string | undefined {
  const h = c.req.header("authorization");
  return h?.startsWith("Bearer ") ? h.slice(7) : undefined;
}

function unauthorized(c: Context): Response {
  return c.json(
    {
      Type: null,
      Title: "Unauthorized",
      Status: 401,
      Detail: "AuthenticationUnsuccessful",
      Instance: randomUUID(),
    },
    401,
  );
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * `If-Modified-Since`: Xero takes an ISO timestamp (`2024-01-31T05:00:00`, UTC when no offset is
 * given) or an HTTP date. Milliseconds.
 */
export function parseIfModifiedSince(value: string): number | undefined {
  const v = value.trim();
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v) ? `${v}Z` : v;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The `where` subset the fake understands: clauses `Path=="value"` or `Path!="value"` (Path may
 * be dotted, e.g. `Contact.ContactID`; the value may be `Guid("…")`) joined by AND. Anything
 * else is refused with 400, as Xero refuses a filter it cannot parse.
 */
function parseWhere(where: string): (r: WireRecord) => boolean {
  const clauses = where.split(/\s+AND\s+/i).map((clause) => {
    const m = /^\s*([A-Za-z][\w.]*)\s*(==|!=)\s*(?:"([^"]*)"|Guid\("([^"]*)"\))\s*$/.exec(clause);
    if (!m) throw new Error(`cannot parse the filter clause ${JSON.stringify(clause)}`);
    const path = (m[1] ?? "").split(".");
    const want = m[3] ?? m[4] ?? "";
    const equal = m[2] === "==";
    return (r: WireRecord) => {
      let v: unknown = r;
      for (const p of path)
        v = typeof v === "object" && v !== null ? (v as WireRecord)[p] : undefined;
      return (String(v ?? "").toLowerCase() === want.toLowerCase()) === equal;
    };
  });
  return (r) => clauses.every((f) => f(r));
}

function emptyBankSummary(tenant: FakeTenant): WireRecord {
  const rows = [...tenant.collections.Accounts.values()]
    .filter((a) => a.body.Type === "BANK")
    .map((a) => ({
      RowType: "Row",
      Cells: [
        {
          Value: String(a.body.Name ?? ""),
          Attributes: [{ Id: "accountID", Value: String(a.body.AccountID) }],
        },
        { Value: "0.00" },
        { Value: "0.00" },
        { Value: "0.00" },
        { Value: "0.00" },
      ],
    }));
  return {
    ReportID: "BankSummary",
    ReportName: "Bank Summary",
    ReportType: "BankSummary",
    ReportTitles: ["Bank Summary", tenant.tenantName],
    ReportDate: new Date().toISOString().slice(0, 10),
    Rows: [
      {
        RowType: "Header",
        Cells: [
          { Value: "Bank Accounts" },
          { Value: "Opening Balance" },
          { Value: "Cash Received" },
          { Value: "Cash Spent" },
          { Value: "Closing Balance" },
        ],
      },
      { RowType: "Section", Title: "", Rows: rows },
    ],
  };
}
