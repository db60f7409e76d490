import { z } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createTestKey, getJson, TEST_NOW } from "../../../../test/helpers/api.ts";
import { createTestOrg } from "../../../../test/helpers/factories.ts";
import { getTestDatabase, testDriver } from "../../../../test/helpers/test-db.ts";
import { auditEvents } from "../../../db/schema/index.ts";
import { fixedClock } from "../../../domain/clock.ts";
import { createLogger } from "../../../logger.ts";
import { createApi } from "../../api.ts";
import { onError } from "../../errors.ts";
import { noopMetering } from "../../pipeline/metering.ts";
import { registerOrgRoute } from "./agent-route.ts";
import { mountAgentApi } from "./dispatch.ts";

/** A throwaway API with one route taking a path id and a query, through the real pipeline. */
async function widgetApi() {
  const { db } = await getTestDatabase();
  const clock = fixedClock(TEST_NOW);
  const api = createApi();
  registerOrgRoute(
    api,
    mountAgentApi(api, { db, clock, logger: createLogger("silent"), metering: noopMetering }),
    {
      path: "/api/agent/widgets/{id}",
      operationId: "getWidget",
      tags: ["widgets"],
      summary: "A widget",
      description: "Test route.",
      scope: "READ_CONTACTS",
      params: z.object({ id: z.string().min(3) }),
      query: z.object({ limit: z.coerce.number().int().max(10).default(5) }),
      response: {
        schema: z.object({
          orgId: z.string(),
          id: z.string(),
          limit: z.number(),
          params: z.string(),
        }),
        description: "The widget.",
      },
      errors: ["not_found"],
      handler: async (ctx, { query, params }) => ({
        orgId: ctx.org.id,
        id: params.id,
        limit: query.limit,
        params: Object.keys(params).join(","),
      }),
    },
  );
  api.onError(onError);
  return { api, db };
}

describe(`registerOrgRoute (${testDriver})`, () => {
  it("serves flat and nested forms with validated path and query input, orgId kept out of params", async () => {
    const { api, db } = await widgetApi();
    const org = await createTestOrg(db);
    const k = await createTestKey(db, {
      kind: "ORG",
      orgId: org.id,
      label: "w",
      scopes: ["READ_CONTACTS"],
    });
    const flat = await getJson(api, "/api/agent/widgets/abc?limit=7", k.key);
    expect([flat.status, flat.body]).toEqual([
      200,
      { orgId: org.id, id: "abc", limit: 7, params: "id" },
    ]);
    const nested = await getJson(api, `/api/agent/orgs/${org.id}/widgets/abcd`, k.key);
    expect([nested.status, nested.body]).toEqual([
      200,
      { orgId: org.id, id: "abcd", limit: 5, params: "id" },
    ]);
    const bad = await getJson(api, "/api/agent/widgets/abc?limit=99", k.key);
    expect([bad.status, bad.body.error, bad.body.parameter]).toEqual([
      400,
      "invalid_parameter",
      "limit",
    ]);
    const rows = await db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.keyId, k.id))
      .orderBy(asc(auditEvents.id));
    expect(rows.map((r) => [r.route, r.status])).toEqual([
      ["/api/agent/widgets/{id}", 200],
      ["/api/agent/widgets/{id}", 200],
      ["/api/agent/widgets/{id}", 400],
    ]);
  });

  it("checks the scope before validating parameters", async () => {
    const { api, db } = await widgetApi();
    const org = await createTestOrg(db);
    const k = await createTestKey(db, {
      kind: "ORG",
      orgId: org.id,
      label: "w",
      scopes: ["READ_BANK"],
    });
    const r = await getJson(api, "/api/agent/widgets/x?limit=99", k.key);
    expect([r.status, r.body.error]).toEqual([403, "insufficient_scope"]);
  });

  it("documents both forms with their parameters, scope and errors", async () => {
    const { api } = await widgetApi();
    const doc = api.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "t", version: "1" } });
    const flat = doc.paths?.["/api/agent/widgets/{id}"]?.get;
    const nested = doc.paths?.["/api/agent/orgs/{orgId}/widgets/{id}"]?.get;
    const names = (op: typeof flat) =>
      op?.parameters?.map((p) => ("name" in p ? p.name : "")).sort();
    expect(names(flat)).toEqual(["id", "limit"]);
    expect(names(nested)).toEqual(["id", "limit", "orgId"]);
    expect(flat?.["x-required-scope"]).toBe("READ_CONTACTS");
    expect(Object.keys(flat?.responses ?? {}).sort()).toEqual([
      "200",
      "304",
      "400",
      "401",
      "403",
      "404",
      "429",
      "500",
      "503",
    ]);
    expect(nested?.operationId).toBe("getWidgetForOrg");
  });
});
