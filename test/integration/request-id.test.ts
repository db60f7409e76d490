import { describe, expect, it } from "vitest";
import { createTestKey, get, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe(`X-Request-Id on every response (${testDriver})`, () => {
  it("echoes a sane incoming id, or mints one, whatever the outcome", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    const bankOnly = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "bank only",
      scopes: ["READ_BANK"],
    });
    const cases: { path: string; key?: string; status: number }[] = [
      { path: "/api/agent/bank-accounts", key: bankOnly.key, status: 200 },
      { path: "/api/agent/bank-accounts", status: 401 },
      { path: "/api/agent/invoices", key: bankOnly.key, status: 403 },
      { path: "/api/agent/orgs/not-mine/bank-accounts", key: bankOnly.key, status: 403 },
      { path: "/api/agent/no-such-route", key: bankOnly.key, status: 404 },
      { path: "/api/agent/openapi.json", status: 200 },
      { path: "/healthz", status: 200 },
      { path: "/nowhere", status: 404 },
    ];
    for (const { path, key, status } of cases) {
      const honoured = await get(t.app, path, key, { "X-Request-Id": "trace-abc.1" });
      expect([path, honoured.status]).toEqual([path, status]);
      expect([path, honoured.headers.get("x-request-id")]).toEqual([path, "trace-abc.1"]);

      const minted = await get(t.app, path, key, { "X-Request-Id": "bad id with spaces" });
      expect(minted.status).toBe(status);
      expect([path, minted.headers.get("x-request-id")]).toEqual([
        path,
        expect.stringMatching(UUID),
      ]);
    }
  });

  it("carries it on a 400 from parameter validation", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "invoices",
      scopes: ["READ_INVOICES"],
    });
    const res = await get(t.app, "/api/agent/invoices?limit=zero", k.key, {
      "X-Request-Id": "validate-1",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toBe("validate-1");
  });
});
