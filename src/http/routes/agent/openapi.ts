import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Api } from "../../api.ts";
import { OPENAPI_PATH } from "./agent-route.ts";

/** The API's version in the OpenAPI `info` block (the spec defines no versioning scheme yet). */
export const API_VERSION = "0.1.0";

const KEY_FORMATS =
  "Send `Authorization: Bearer <key>`. Organisation keys read `cr_live_<prefix>_<secret>`; USER " +
  "and PARTNER keys read `crun_<prefix>_<secret>`. `<prefix>` is 10 characters and `<secret>` " +
  "38, all lower-case Crockford base32; the secret's last 6 characters are a checksum, so a " +
  "mistyped key is refused at once. Every authentication failure (missing or non-bearer header, " +
  "malformed or mistyped key, unknown prefix, wrong secret, revoked key) answers 401 with the " +
  'same body, `{"error":"unauthorized"}`.';

const API_DESCRIPTION = [
  "Read-only agent API of Cash Runway: one organisation's cash data per request.",
  "",
  "**Choosing the organisation.** An organisation key reads its own organisation on the flat " +
    "routes (`/api/agent/bank-accounts`). Every flat route is also served as " +
    "`/api/agent/orgs/{orgId}/…` (same response schema). A USER or PARTNER key reaching exactly " +
    "one organisation may use the flat form; a key reaching several gets 400 `org_required` " +
    "there and must use the nested form. An `{orgId}` outside the key's reach — unknown, " +
    "malformed or simply not reachable, indistinguishably — answers 403 `forbidden`. " +
    "`GET /api/agent/orgs` lists the reachable organisations.",
  "",
  "**Errors** are `{ error: <code>, message?, … }` with snake_case codes: `unauthorized` (401), " +
    "`org_required`, `invalid_parameter` (400), `forbidden`, `insufficient_scope` (403, with " +
    "`requiredScope`), `no_billable_seat` (403), `not_found` (404), `rate_limited`, " +
    "`credits_exhausted` (429, with `retryAfterSeconds`), `service_unavailable` (503), " +
    "`invalid_cursor` (400), `no_brief_yet` (404), `method_not_allowed` (405, with `Allow`: " +
    "every route is GET or HEAD), `internal_error` (500, with `requestId`). " +
    "A request refused before any route (not valid HTTP/1.1, a malformed Host, headers over " +
    "16 KiB, too slow to arrive) gets the same shape with `bad_request` (400), " +
    "`headers_too_large` (431), `payload_too_large` (413) or `request_timeout` (408), and the " +
    "connection is closed. " +
    "`HEAD` on a route answers as `GET` without the body, and is metered and audited the same.",
  "",
  "**Metering.** After authentication, organisation and scope, every request passes the burst " +
    "cap (60 requests per sliding minute per key per endpoint, unless the deployment sets " +
    "another with `BURST_LIMIT_PER_MINUTE`: `RateLimit-Policy` and `/status` `burstLimit` carry " +
    "the figure in force; the flat and nested forms are one endpoint), then uses one query credit from the rolling 5-hour window of (key creator, " +
    "billing account of the organisation): Free 10, Pocket 50, Wallet 250, Vault 1,000, " +
    "Reserve 5,000. `/api/agent/status` uses no credit. Refused requests use nothing past the " +
    "refusing step, and a 5xx gives its credit back (so does a 304, below). A key whose user holds no seat on the " +
    "organisation's billing account gets 403 `no_billable_seat` (its `/status` still answers, " +
    "with `usage: null`); when credits cannot be checked the answer is 503, never unmetered data. " +
    "Every 429 carries `Retry-After`; successful responses carry `X-Service-*`, `RateLimit` and " +
    "`RateLimit-Policy` headers, and `billingAlert` / `ledgerAlert` in the body when attention is " +
    "needed.",
  "",
  "**Conditional requests and compression.** Every successful `GET` carries a weak `ETag` " +
    "computed from the response body itself (without its `billingAlert`, whose state the " +
    "`X-Service-*` and `RateLimit` headers carry) and the key's view (route, " +
    "scopes), so it changes whenever anything the key would read changes: an import or sync, a " +
    "recomputed forecast, a sensitive flag, a scope, a figure that moves with the date. Sent back " +
    "as `If-None-Match`, a tag that still matches answers `304 Not Modified` with no body and the " +
    "same headers; a 304 uses no query credit (it is taken at admission and given back once the " +
    "tag matches; with no credit left, a matching tag still answers 304 and any other " +
    "429 `credits_exhausted`), is " +
    "still counted by the burst cap and still audited. The handler still runs: a 304 saves the " +
    "credit and the transfer, not the server's work. Every agent response carries " +
    "`Cache-Control: private, no-cache` and `Vary: Authorization, Accept-Encoding`. Bodies of " +
    "1,024 bytes or more are compressed with Brotli or gzip when `Accept-Encoding` allows it " +
    "(Brotli preferred at equal weight); the tag is the same for every coding.",
  "",
  "**Sensitive data.** Without `READ_SENSITIVE`, rows flagged sensitive are absent from lists " +
    "and counted in `redactedItemCount`.",
  "",
  "**Audit.** Every authenticated request is recorded (key, organisation, route template, " +
    "status) and updates the key's last-used time; both are written in batches, within about " +
    "100 ms of the response (docs/api.md, Audit).",
].join("\n");

/**
 * `GET /api/agent/openapi.json`, public. Generated from the registered route schemas on first
 * request and cached (routes do not change at run time); `servers` names the requesting origin.
 *
 * Returns the function that mounts its handler: the document describes itself first (the first
 * of `paths`), but its handler goes after app.ts's request-log middleware, which the agent
 * API's own handler precedes (app.ts).
 */
export function registerOpenApiDocument(api: Api): () => void {
  api.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "cr_live_<prefix>_<secret> | crun_<prefix>_<secret>",
    description: KEY_FORMATS,
  });
  let cached: Record<string, unknown> | undefined;
  // Typed as the wide RouteConfig: the body is a plain JSON Schema object, not a Zod schema.
  const route: RouteConfig = createRoute({
    method: "get",
    path: OPENAPI_PATH,
    operationId: "getOpenApiDocument",
    tags: ["meta"],
    summary: "This OpenAPI 3.1 document",
    description: "Public: no key needed, not metered, not audited.",
    security: [],
    responses: {
      200: {
        description: "The OpenAPI 3.1 document.",
        content: { "application/json": { schema: { type: "object" } } },
      },
    },
  });
  api.openAPIRegistry.registerPath(route);
  return () =>
    api.get(OPENAPI_PATH, (c) => {
      cached ??= api.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "Cash Runway agent API",
          version: API_VERSION,
          description: API_DESCRIPTION,
        },
        security: [{ bearerAuth: [] }],
        tags: [
          { name: "orgs", description: "Reachable organisations (partner discovery)." },
          { name: "bank-accounts", description: "Bank accounts and balances (READ_BANK)." },
          { name: "meta", description: "This document." },
        ],
      }) as unknown as Record<string, unknown>;
      const origin = new URL(c.req.url).origin;
      return c.json({ ...cached, servers: [{ url: origin, description: "This server" }] }, 200);
    });
}
