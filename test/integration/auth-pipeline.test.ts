import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { apiKeys, auditEvents } from "../../src/db/schema/index.ts";
import { generateApiKey, keyChecksum } from "../../src/domain/keys.ts";
import { SCOPES, type Scope } from "../../src/domain/scopes.ts";
import type { MeteringContext, MeteringHook } from "../../src/http/pipeline/metering.ts";
import { setSeat } from "../../src/services/billing/set-billing.ts";
import { ServiceError } from "../../src/services/errors.ts";
import { revokeApiKey } from "../../src/services/keys/revoke-api-key.ts";
import { rotateApiKey } from "../../src/services/keys/rotate-api-key.ts";
import { createPartner, linkPartner, unlinkPartner } from "../../src/services/partners/partners.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import {
  createTestKey,
  get,
  getJson,
  rowsOf,
  TEST_NOW,
  type TestApp,
  testApp,
} from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { orgWithKey } from "../helpers/metering.ts";
import { testDriver } from "../helpers/test-db.ts";

/** Every organisation-scoped endpoint and its scope: the shared contract runs over all of them. */
const SCOPED_ENDPOINTS: { path: string; scope: Scope }[] = [
  { path: "/api/agent/bank-accounts", scope: "READ_BANK" },
];

const nested = (orgId: string, flat: string) =>
  flat.replace("/api/agent/", `/api/agent/orgs/${orgId}/`);
const secretOf = (key: string) => key.split("_").at(-1) ?? "";

/** The key's audit rows, once the app's batched writer has committed what it holds. */
async function auditRows(t: TestApp, keyId: string) {
  await t.flushAudit();
  return t.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.keyId, keyId))
    .orderBy(asc(auditEvents.id));
}

/** The key's row, once the app's batched writer has stamped its last use. */
async function keyRow(t: TestApp, id: string) {
  await t.flushAudit();
  const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.id, id));
  if (!row) throw new Error(`no key ${id}`);
  return row;
}

describe(`agent request pipeline (${testDriver})`, () => {
  describe("authentication", () => {
    it("answers all six failure causes with byte-identical 401s", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const good = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "good",
        scopes: ["READ_BANK"],
      });
      const revoked = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "revoked",
        scopes: ["READ_BANK"],
      });
      await revokeApiKey(t.db, revoked.prefix, TEST_NOW);
      const unknown = generateApiKey("crun").key; // well-formed, valid checksum, no such prefix
      const body = generateApiKey("cr_live").secret.slice(0, 32);
      const wrongSecret = `cr_live_${good.prefix}_${body}${keyChecksum("cr_live", good.prefix, body)}`;
      const badChecksum = `${good.key.slice(0, -1)}${good.key.endsWith("0") ? "1" : "0"}`;
      const cases: [string, Record<string, string>][] = [
        ["missing header", {}],
        ["non-bearer scheme", { Authorization: `Basic ${good.key}` }],
        ["bad prefix", { Authorization: `Bearer ${good.key.replace("cr_live_", "sk_live_")}` }],
        ["unknown key", { Authorization: `Bearer ${unknown}` }],
        ["wrong secret", { Authorization: `Bearer ${wrongSecret}` }],
        ["revoked key", { Authorization: `Bearer ${revoked.key}` }],
        ["bad checksum", { Authorization: `Bearer ${badChecksum}` }],
        ["empty bearer", { Authorization: "Bearer " }],
      ];
      const seen: { name: string; status: number; text: string; headers: string }[] = [];
      for (const path of [
        "/api/agent/bank-accounts",
        nested(org.id, "/api/agent/bank-accounts"),
        "/api/agent/orgs",
        "/api/agent/no-such-route",
      ]) {
        for (const [name, headers] of cases) {
          const res = await t.app.request(path, { headers });
          const h = [...res.headers].filter(([k]) => k !== "x-request-id").sort();
          seen.push({
            name,
            status: res.status,
            text: await res.text(),
            headers: JSON.stringify(h),
          });
        }
      }
      for (const s of seen) {
        expect(s, s.name).toEqual({
          name: s.name,
          status: 401,
          text: '{"error":"unauthorized"}',
          headers: seen[0]?.headers,
        });
      }
      // And the good key works, so the failures above are not an artefact of the setup.
      expect((await get(t.app, "/api/agent/bank-accounts", good.key)).status).toBe(200);
    });

    it("accepts the bearer scheme case-insensitively and nothing else around the token", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      const status = async (value: string) =>
        (await t.app.request("/api/agent/orgs", { headers: { Authorization: value } })).status;
      expect(await status(`bearer ${k.key}`)).toBe(200);
      expect(await status(`Bearer ${k.key} extra`)).toBe(401);
      expect(await status(`Bearer${k.key}`)).toBe(401);
    });

    it("serves the OpenAPI document without a key", async () => {
      const t = await testApp();
      expect((await get(t.app, "/api/agent/openapi.json")).status).toBe(200);
    });

    it("logs one request line carrying the request id echoed in X-Request-Id", async () => {
      const t = await testApp({ captureLogs: true });
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      const res = await get(t.app, "/api/agent/bank-accounts", k.key);
      const requestId = res.headers.get("x-request-id");
      expect(requestId).toBeTruthy();
      const lines = t.logs.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        requestId,
        method: "GET",
        route: "/api/agent/bank-accounts",
        status: 200,
        keyPrefix: k.prefix,
      });
    });

    it("logs the request line of a request whose authentication fails with an error (database down)", async () => {
      const t = await testApp({ captureLogs: true });
      let down = false;
      const db = new Proxy(t.db, {
        get(target, property, receiver) {
          if (down) throw new Error("database down");
          return Reflect.get(target, property, receiver);
        },
      });
      const app = createApp({ ...t.deps, database: { ...t.deps.database, db } });
      down = true;
      const res = await app.request("/api/agent/bank-accounts", {
        headers: { Authorization: `Bearer ${generateApiKey("cr_live").key}` },
      });
      expect(res.status).toBe(500);
      const requestId = res.headers.get("x-request-id");
      const lines = t.logs.map((l) => JSON.parse(l));
      expect(lines.filter((l) => l.msg === "unhandled error")).toHaveLength(1);
      expect(lines.filter((l) => l.msg === "request")).toEqual([
        expect.objectContaining({ requestId, status: 500, path: "/api/agent/bank-accounts" }),
      ]);
    });

    it("takes a query name that is an object's prototype key as an ordinary name", async () => {
      const t = await testApp();
      const { key: k } = await orgWithKey(t.db, { scopes: ["READ_CONTACTS"] });
      for (const query of ["__proto__=a", "__proto__=a&__proto__=b", "constructor=x&toString=y"]) {
        const r = await get(t.app, `/api/agent/contacts?${query}`, k.key);
        expect(r.status, `${query}: ${await r.clone().text()}`).toBe(200);
      }
    });

    it("never writes a key or secret to a log line", async () => {
      const t = await testApp({ captureLogs: true });
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      const revoked = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "r",
        scopes: ["READ_BANK"],
      });
      await revokeApiKey(t.db, revoked.prefix, TEST_NOW);
      await get(t.app, "/api/agent/bank-accounts", k.key);
      await get(t.app, "/api/agent/orgs", k.key);
      await get(t.app, "/api/agent/orgs/org_other/bank-accounts", k.key);
      await get(t.app, "/api/agent/nope", k.key);
      await get(t.app, "/api/agent/bank-accounts", revoked.key);
      await get(
        t.app,
        "/api/agent/bank-accounts",
        `${k.key.slice(0, -1)}${k.key.endsWith("x") ? "y" : "x"}`,
      );
      await get(t.app, `/api/agent/bank-accounts?key=${k.key}`, k.key);
      expect(t.logs.length).toBeGreaterThanOrEqual(7);
      const all = t.logs.join("\n");
      for (const key of [k, revoked]) expect(all).not.toContain(secretOf(key.key).slice(0, 32));
      expect(all).toContain(k.prefix); // the public prefix is logged, so the scan is real
    });
  });

  describe("scopes", () => {
    for (const { path, scope } of SCOPED_ENDPOINTS) {
      it(`answers 403 insufficient_scope naming ${scope} on ${path}, flat and nested`, async () => {
        const t = await testApp();
        const org = await createTestOrg(t.db);
        const others = SCOPES.filter((s) => s !== scope && s !== "READ_SENSITIVE");
        const without = await createTestKey(t.db, {
          kind: "ORG",
          orgId: org.id,
          label: "without",
          scopes: others,
          sensitive: true,
        });
        const withScope = await createTestKey(t.db, {
          kind: "ORG",
          orgId: org.id,
          label: "with",
          scopes: [scope],
        });
        for (const p of [path, nested(org.id, path)]) {
          const r = await getJson(t.app, p, without.key);
          expect(r.status, r.text).toBe(403);
          expect(r.body).toEqual({
            error: "insufficient_scope",
            requiredScope: scope,
            message: expect.stringContaining(scope),
          });
          const ok = await getJson(t.app, p, withScope.key);
          expect(ok.status, ok.text).toBe(200);
        }
      });
    }

    it("lets any valid key list its organisations", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_PURCHASE_ORDERS"],
      });
      const r = await getJson(t.app, "/api/agent/orgs", k.key);
      expect(r.status, r.text).toBe(200);
    });
  });

  describe("organisation reach", () => {
    it("gives an organisation key its own organisation only, in both forms", async () => {
      const t = await testApp();
      const own = await createTestOrg(t.db);
      const other = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: own.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      expect((await get(t.app, "/api/agent/bank-accounts", k.key)).status).toBe(200);
      expect((await get(t.app, `/api/agent/orgs/${own.id}/bank-accounts`, k.key)).status).toBe(200);
      const outside = await getJson(t.app, `/api/agent/orgs/${other.id}/bank-accounts`, k.key);
      const unknown = await getJson(
        t.app,
        "/api/agent/orgs/org_doesnotexist000000/bank-accounts",
        k.key,
      );
      const malformed = await getJson(
        t.app,
        `/api/agent/orgs/${"%27%20or%201%3D1"}/bank-accounts`,
        k.key,
      );
      const huge = await getJson(t.app, `/api/agent/orgs/${"o".repeat(500)}/bank-accounts`, k.key);
      expect(outside.status).toBe(403);
      expect(outside.body).toEqual({ error: "forbidden", message: expect.any(String) });
      // Unknown, malformed and out-of-reach ids are indistinguishable.
      for (const r of [unknown, malformed, huge]) {
        expect([r.status, r.text]).toEqual([outside.status, outside.text]);
      }
    });

    it("makes a USER key over two organisations use the nested form", async () => {
      const t = await testApp();
      const a = await createTestOrg(t.db, { name: `B reach ${Math.random()}` });
      const b = await createTestOrg(t.db, { name: `A reach ${Math.random()}` });
      const third = await createTestOrg(t.db);
      const user = await createUser(
        t.db,
        { email: `two-${a.id}@example.com`, orgId: a.id },
        TEST_NOW,
      );
      const k = await createTestKey(t.db, {
        kind: "USER",
        userId: user.id,
        label: "u",
        scopes: ["READ_BANK"],
      });
      // Seats, so metering charges the key in both organisations (seats: metering-pipeline).
      await setSeat(t.db, { orgId: a.id, userId: user.id, plan: "Pocket" }, TEST_NOW);
      await setSeat(t.db, { orgId: b.id, userId: user.id, plan: "Pocket" }, TEST_NOW);

      // One organisation: the flat form works.
      expect((await get(t.app, "/api/agent/bank-accounts", k.key)).status).toBe(200);

      await createUser(t.db, { email: `two-${a.id}@example.com`, orgId: b.id }, TEST_NOW);
      const flat = await getJson(t.app, "/api/agent/bank-accounts", k.key);
      expect(flat.status, flat.text).toBe(400);
      expect(flat.body).toEqual({
        error: "org_required",
        message: expect.stringMatching(/orgs\/\{orgId\}/),
      });
      for (const org of [a, b]) {
        expect((await get(t.app, `/api/agent/orgs/${org.id}/bank-accounts`, k.key)).status).toBe(
          200,
        );
      }
      expect((await get(t.app, `/api/agent/orgs/${third.id}/bank-accounts`, k.key)).status).toBe(
        403,
      );
      const orgs = await getJson<{ keyKind: string; orgs: { id: string }[] }>(
        t.app,
        "/api/agent/orgs",
        k.key,
      );
      expect(orgs.body.keyKind).toBe("USER");
      expect(orgs.body.orgs.map((o) => o.id)).toEqual([b.id, a.id]); // by name
    });

    it("follows a partner's live links and pins without extending to later links", async () => {
      const t = await testApp();
      const a = await createTestOrg(t.db);
      const b = await createTestOrg(t.db);
      const c = await createTestOrg(t.db);
      const partner = await createPartner(t.db, { name: `Practice ${a.id}` }, TEST_NOW);
      const live = await createTestKey(t.db, {
        kind: "PARTNER",
        partnerId: partner.id,
        label: "live",
      });

      // No links yet: nothing to read.
      expect((await getJson(t.app, "/api/agent/orgs", live.key)).body).toEqual({
        keyKind: "PARTNER",
        orgs: [],
      });
      const none = await getJson(t.app, "/api/agent/bank-accounts", live.key);
      expect([none.status, none.body.error]).toEqual([403, "forbidden"]);

      await linkPartner(t.db, partner.id, a.id, TEST_NOW);
      // Seats for the partner's user, so metering charges its keys (seats: metering-pipeline).
      for (const org of [a, b]) {
        await setSeat(
          t.db,
          { orgId: org.id, userId: partner.ownerUserId, plan: "Pocket" },
          TEST_NOW,
        );
      }
      const pinned = await createTestKey(t.db, {
        kind: "PARTNER",
        partnerId: partner.id,
        label: "pinned",
        pinnedOrgIds: [a.id],
      });
      expect((await get(t.app, "/api/agent/bank-accounts", live.key)).status).toBe(200);

      await linkPartner(t.db, partner.id, b.id, TEST_NOW);
      expect((await get(t.app, "/api/agent/bank-accounts", live.key)).status).toBe(400);
      expect((await get(t.app, `/api/agent/orgs/${b.id}/bank-accounts`, live.key)).status).toBe(
        200,
      );
      expect((await get(t.app, `/api/agent/orgs/${c.id}/bank-accounts`, live.key)).status).toBe(
        403,
      );
      // The pinned key does not grow with the new link.
      expect((await get(t.app, `/api/agent/orgs/${b.id}/bank-accounts`, pinned.key)).status).toBe(
        403,
      );
      expect((await get(t.app, "/api/agent/bank-accounts", pinned.key)).status).toBe(200);
      const pinnedOrgs = await getJson<{ orgs: { id: string }[] }>(
        t.app,
        "/api/agent/orgs",
        pinned.key,
      );
      expect(pinnedOrgs.body.orgs.map((o) => o.id)).toEqual([a.id]);

      // Unlinking applies to the very next request, for both keys.
      await unlinkPartner(t.db, partner.id, b.id);
      expect((await get(t.app, `/api/agent/orgs/${b.id}/bank-accounts`, live.key)).status).toBe(
        403,
      );
      await unlinkPartner(t.db, partner.id, a.id);
      expect((await get(t.app, `/api/agent/orgs/${a.id}/bank-accounts`, pinned.key)).status).toBe(
        403,
      );
      expect((await getJson(t.app, "/api/agent/orgs", pinned.key)).body).toEqual({
        keyKind: "PARTNER",
        orgs: [],
      });
      // Re-linking a pinned organisation restores it (pinned ∩ live links).
      await linkPartner(t.db, partner.id, a.id, TEST_NOW);
      expect((await get(t.app, `/api/agent/orgs/${a.id}/bank-accounts`, pinned.key)).status).toBe(
        200,
      );
    });
  });

  describe("key lifecycle through the API", () => {
    it("refuses the old key and accepts the new one once the key cache polls after rotation", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const old = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      expect((await get(t.app, "/api/agent/bank-accounts", old.key)).status).toBe(200);
      const rotated = await rotateApiKey(t.db, old.prefix, TEST_NOW);
      await t.deps.keyCache?.poll(); // at most 250 ms later on a server (verified-key-cache.ts)
      expect((await get(t.app, "/api/agent/bank-accounts", old.key)).status).toBe(401);
      expect((await get(t.app, "/api/agent/bank-accounts", rotated.key)).status).toBe(200);
    });

    it("refuses a revoked key on every endpoint once the key cache polls", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      expect((await get(t.app, "/api/agent/orgs", k.key)).status).toBe(200);
      await revokeApiKey(t.db, k.prefix, TEST_NOW);
      await t.deps.keyCache?.poll(); // at most 250 ms later on a server (verified-key-cache.ts)
      for (const p of [
        "/api/agent/orgs",
        "/api/agent/bank-accounts",
        nested(org.id, "/api/agent/bank-accounts"),
      ]) {
        expect((await get(t.app, p, k.key)).status).toBe(401);
      }
    });
  });

  describe("methods", () => {
    it("answers 405 with Allow for a path served only for other methods, after authentication", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      const auth = { authorization: `Bearer ${k.key}` };
      for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
        for (const path of [
          "/api/agent/bank-accounts",
          nested(org.id, "/api/agent/bank-accounts"),
          "/api/agent/contacts/c_1",
        ]) {
          const res = await t.app.request(path, { method, headers: auth });
          expect([method, path, res.status, res.headers.get("allow")]).toEqual([
            method,
            path,
            405,
            "GET, HEAD",
          ]);
          expect(await res.json()).toEqual({
            error: "method_not_allowed",
            message: `${method} is not served here; use GET or HEAD.`,
          });
          expect(res.headers.get("x-request-id")).toBeTruthy();
        }
        // Without a key: 401 as for any agent path; an unknown path stays 404.
        expect((await t.app.request("/api/agent/bank-accounts", { method })).status).toBe(401);
        const unknown = await t.app.request("/api/agent/no-such", { method, headers: auth });
        expect(unknown.status).toBe(404);
      }
      // The public document too.
      const doc = await t.app.request("/api/agent/openapi.json", { method: "POST" });
      expect([doc.status, doc.headers.get("allow")]).toEqual([405, "GET, HEAD"]);
      // A 405 uses no credit and is audited as unmatched.
      const rows = await auditRows(t, k.id);
      expect(new Set(rows.map((r) => [r.route, r.status].join(" ")))).toEqual(
        new Set(["(unmatched) 405", "(unmatched) 404"]),
      );
    });
  });

  describe("audit", () => {
    it("writes one row per authenticated request with the route template, status and sensitive flag", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const other = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_FORECAST"],
      });
      const at = new Date("2026-03-05T10:00:00.000Z");
      t.clock.set(at);
      await get(t.app, "/api/agent/bank-accounts", k.key, { "X-Request-Id": "req-scope" });
      await get(t.app, nested(org.id, "/api/agent/orgs"), k.key); // unmatched route
      await get(t.app, nested(other.id, "/api/agent/bank-accounts"), k.key, {
        "X-Request-Id": "req-forbidden",
      });
      await get(t.app, "/api/agent/orgs", k.key, { "X-Request-Id": "req-orgs" });
      await get(t.app, "/api/agent/orgs"); // unauthenticated: no row (and no key to attribute it to)
      const rows = await auditRows(t, k.id);
      expect(
        rows.map((r) => [r.method, r.route, r.status, r.orgId, r.sensitive, r.requestId]),
      ).toEqual([
        ["GET", "/api/agent/bank-accounts", 403, org.id, false, "req-scope"],
        ["GET", "(unmatched)", 404, null, false, expect.any(String)],
        ["GET", "/api/agent/bank-accounts", 403, null, false, "req-forbidden"],
        ["GET", "/api/agent/orgs", 200, null, false, "req-orgs"],
      ]);
      for (const r of rows) expect(r.at).toEqual(at);
      const row = await keyRow(t, k.id);
      expect(row.lastUsedAt).toEqual(at);
      expect(row.lastSensitiveAccessAt).toBeNull();
    });

    it("records nested calls under the flat template and stamps last sensitive access for sensitive keys", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "s",
        scopes: ["READ_BANK"],
        sensitive: true,
      });
      const first = new Date("2026-03-06T00:00:00.000Z");
      t.clock.set(first);
      await get(t.app, nested(org.id, "/api/agent/bank-accounts"), k.key);
      expect(await keyRow(t, k.id)).toMatchObject({
        lastUsedAt: first,
        lastSensitiveAccessAt: first,
      });
      const second = new Date("2026-03-06T00:05:00.000Z");
      t.clock.set(second);
      await get(t.app, "/api/agent/bank-accounts", k.key);
      const rows = await auditRows(t, k.id);
      expect(rows.map((r) => [r.route, r.status, r.orgId, r.sensitive, r.at])).toEqual([
        ["/api/agent/bank-accounts", 200, org.id, true, first],
        ["/api/agent/bank-accounts", 200, org.id, true, second],
      ]);
      expect(await keyRow(t, k.id)).toMatchObject({
        lastUsedAt: second,
        lastSensitiveAccessAt: second,
      });
    });

    it("keeps audit rows after rotation and revocation, and stores no secret in them", async () => {
      const t = await testApp();
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      await get(t.app, "/api/agent/bank-accounts", k.key, { "X-Request-Id": "audit-keep" });
      const rotated = await rotateApiKey(t.db, k.prefix, TEST_NOW);
      await get(t.app, `/api/agent/bank-accounts?token=${rotated.key}`, rotated.key);
      await revokeApiKey(t.db, rotated.prefix, TEST_NOW);
      expect(await auditRows(t, k.id)).toHaveLength(1);
      expect(await auditRows(t, rotated.id)).toHaveLength(1);
      const cols = rowsOf<{ column_name: string }>(
        await t.db.execute(sql`
        select column_name from information_schema.columns
         where table_name = 'audit_events' and data_type in ('text', 'character varying')`),
      );
      expect(cols.map((c) => c.column_name)).toEqual(
        expect.arrayContaining(["route", "request_id"]),
      );
      for (const key of [k, rotated]) {
        for (const { column_name } of cols) {
          const hits = rowsOf<{ n: number }>(
            await t.db.execute(
              sql`select count(*)::int as n from audit_events where ${sql.identifier(column_name)} like ${`%${secretOf(key.key).slice(0, 32)}%`}`,
            ),
          );
          expect(hits[0]?.n, `audit_events.${column_name} holds a secret`).toBe(0);
        }
      }
    });

    it("turns a failed audit write into a 500 instead of serving unaudited data", async () => {
      const t = await testApp({
        auditWriter: {
          write: async () => {
            throw new Error("database down");
          },
          flush: async () => {},
          close: async () => {},
        },
      });
      const { key: k } = await orgWithKey(t.db);
      const res = await get(t.app, "/api/agent/bank-accounts", k.key);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toMatchObject({ error: "internal_error" });
      expect(text).not.toContain("accounts");
    });
  });

  describe("metering slot", () => {
    it("admits after the scope check and settles with the final status", async () => {
      const calls: string[] = [];
      const hook: MeteringHook = {
        admit: async (m: MeteringContext) => {
          calls.push(`admit ${m.routeTemplate} ${m.org?.id ?? "-"} ${m.chargesCredit}`);
        },
        settle: async (m: MeteringContext, status: number) => {
          calls.push(`settle ${m.routeTemplate} ${status}`);
        },
      };
      const t = await testApp({ metering: hook });
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      const noScope = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "n",
        scopes: ["READ_FORECAST"],
      });
      await get(t.app, nested(org.id, "/api/agent/bank-accounts"), k.key);
      await get(t.app, "/api/agent/bank-accounts", noScope.key); // 403 before metering
      await get(t.app, "/api/agent/orgs", k.key);
      expect(calls).toEqual([
        `admit /api/agent/bank-accounts ${org.id} true`,
        "settle /api/agent/bank-accounts 200",
        "admit /api/agent/orgs - true",
        "settle /api/agent/orgs 200",
      ]);
    });

    it("turns a refusal into its error response, audited", async () => {
      const hook: MeteringHook = {
        admit: async () => {
          throw new ServiceError(
            "rate_limited",
            "Slow down.",
            { retryAfterSeconds: 7 },
            { "Retry-After": "7" },
          );
        },
        settle: async () => {},
      };
      const t = await testApp({ metering: hook });
      const org = await createTestOrg(t.db);
      const k = await createTestKey(t.db, {
        kind: "ORG",
        orgId: org.id,
        label: "l",
        scopes: ["READ_BANK"],
      });
      const r = await getJson(t.app, "/api/agent/bank-accounts", k.key);
      expect([r.status, r.body.error, r.res.headers.get("retry-after")]).toEqual([
        429,
        "rate_limited",
        "7",
      ]);
      const rows = await auditRows(t, k.id);
      expect(rows.map((x) => [x.route, x.status])).toEqual([["/api/agent/bank-accounts", 429]]);
    });
  });
});
