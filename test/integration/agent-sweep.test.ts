import { beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.ts";
import { limitsWith } from "../../src/domain/metering/plans.ts";
import { ALL_BUT_SENSITIVE, type Scope } from "../../src/domain/scopes.ts";
import { createMetering } from "../../src/http/pipeline/metering.ts";
import { OPENAPI_PATH } from "../../src/http/routes/agent/agent-route.ts";
import { createTestKey, get, getJson, testApp, testLogger } from "../helpers/api.ts";
import { orgWithKey } from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

/**
 * A value each query parameter of the agent API refuses, by name. Every parameter the document
 * declares must be listed (a new one fails the sweep until it is): a string, which must answer
 * 400; or null with the reason no value is refused.
 */
const INVALID: Record<string, string | { none: string }> = {
  asAtDate: "2026-02-30",
  autoPaginate: "maybe",
  contactId: "x".repeat(201),
  cursor: "not-a-cursor",
  dateFrom: "2026-13-01",
  dateTo: "2026-13-01",
  forceRefresh: "maybe",
  granularity: "week",
  limit: "0",
  lines: "maybe",
  metric: "churn",
  periods: "1.5",
  scenarioId: "x".repeat(101),
  sort: "name_asc",
  status: { none: "unknown statuses in the list are ignored (spec: status filters)" },
  topN: "0",
  totals: "maybe",
  type: "vendor",
  variance: "maybe",
  varianceCategories: "maybe",
  varianceHorizon: "14",
};

interface Operation {
  path: string;
  scope: Scope | null;
  query: string[];
  pathParams: string[];
}

type Doc = {
  paths: Record<
    string,
    {
      get?: {
        "x-required-scope"?: Scope | null;
        parameters?: { name: string; in: string }[];
      };
    }
  >;
};

/** The test app, wired as production is (real metering, key cache, batched audit writer). */
async function productionApp(burstLimit?: number): Promise<App> {
  if (!burstLimit) return (await testApp()).app;
  const { db } = await getTestDatabase();
  const metering = createMetering({
    db,
    logger: testLogger().logger,
    limits: limitsWith({ burstLimit }),
  });
  return (await testApp({ metering })).app;
}

let app: App;
let operations: Operation[];

beforeAll(async () => {
  app = await productionApp();
  const doc = (await (await app.request(OPENAPI_PATH)).json()) as Doc;
  operations = Object.entries(doc.paths).flatMap(([path, item]) => {
    const op = item.get;
    if (!op || path === OPENAPI_PATH) return [];
    const params = op.parameters ?? [];
    return [
      {
        path,
        scope: op["x-required-scope"] ?? null,
        query: params.filter((p) => p.in === "query").map((p) => p.name),
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
      },
    ];
  });
});

/** The operation's path with its organisation and ids filled in. */
function concrete(op: Operation, orgId: string, id = "does-not-exist"): string {
  return op.path.replace("{orgId}", orgId).replace(/\{[A-Za-z]+\}/g, id);
}

describe(`every agent route, swept (${testDriver})`, () => {
  it("answers 401 without a key, and with a malformed one", async () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations) {
      for (const key of [undefined, "cr_live_nope"]) {
        const r = await getJson(app, concrete(op, "org_x"), key);
        expect([op.path, r.status, r.body.error]).toEqual([op.path, 401, "unauthorized"]);
      }
    }
  });

  it("answers 403 insufficient_scope naming the scope, for each scope a route requires", async () => {
    const { db } = await getTestDatabase();
    const { org } = await orgWithKey(db, { plan: "Vault" });
    const keys = new Map<Scope, string>();
    for (const scope of ALL_BUT_SENSITIVE) {
      const created = await createTestKey(db, {
        kind: "ORG",
        orgId: org.id,
        label: `without ${scope}`,
        scopes: ALL_BUT_SENSITIVE.filter((s) => s !== scope),
      });
      keys.set(scope, created.key);
    }
    let checked = 0;
    for (const op of operations) {
      if (!op.scope) continue;
      const r = await getJson(app, concrete(op, org.id), keys.get(op.scope));
      expect([op.path, r.status, r.body.error, r.body.requiredScope]).toEqual([
        op.path,
        403,
        "insufficient_scope",
        op.scope,
      ]);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("answers 403 forbidden for an organisation outside the key's reach, 404 for an unknown id", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await orgWithKey(db, { plan: "Vault", scopes: [...ALL_BUT_SENSITIVE] });
    for (const op of operations) {
      if (op.pathParams.includes("orgId")) {
        const r = await getJson(app, concrete(op, "org_not_mine"), key.key);
        expect([op.path, r.status, r.body.error]).toEqual([op.path, 403, "forbidden"]);
      }
      if (op.pathParams.some((p) => p !== "orgId")) {
        const r = await getJson(app, concrete(op, org.id), key.key);
        expect([op.path, r.status, r.body.error]).toEqual([op.path, 404, "not_found"]);
      }
    }
  });

  it("answers 400 for an invalid value of each query parameter, naming it", async () => {
    const { db } = await getTestDatabase();
    const { org, key } = await orgWithKey(db, { plan: "Vault", scopes: [...ALL_BUT_SENSITIVE] });
    let checked = 0;
    for (const op of operations) {
      for (const name of op.query) {
        const invalid = INVALID[name];
        expect(invalid, `${op.path}: no invalid value listed for ${name}`).toBeDefined();
        if (typeof invalid !== "string") continue;
        const url = `${concrete(op, org.id, "x")}?${new URLSearchParams({ [name]: invalid })}`;
        const r = await getJson(app, url, key.key);
        expect([url.slice(0, 120), r.status]).toEqual([url.slice(0, 120), 400]);
        if (r.body.error === "invalid_parameter") expect(r.body.parameter).toBe(name);
        else expect([name, r.body.error]).toEqual(["cursor", "invalid_cursor"]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("answers 429 rate_limited with Retry-After once a route's burst cap is used", async () => {
    const limited = await productionApp(1);
    const { db } = await getTestDatabase();
    const { org, key } = await orgWithKey(db, { plan: "Vault", scopes: [...ALL_BUT_SENSITIVE] });
    for (const op of operations) {
      const path = concrete(op, org.id);
      await get(limited, path, key.key);
      const r = await getJson(limited, path, key.key);
      expect([op.path, r.status, r.body.error]).toEqual([op.path, 429, "rate_limited"]);
      expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
  });
});
