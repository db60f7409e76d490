import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { and, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ConfigSchema } from "../../src/config.ts";
import { auditEvents } from "../../src/db/schema/index.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { limitsWith } from "../../src/domain/metering/plans.ts";
import type { Scope } from "../../src/domain/scopes.ts";
import { deploymentMetering } from "../../src/http/pipeline/metering.ts";
import type { StatusResponse } from "../../src/http/routes/agent/status/index.ts";
import { createLogger } from "../../src/logger.ts";
import type { Metering } from "../../src/services/metering/metering.ts";
import { setSensitive } from "../../src/services/sensitivity/set-sensitive.ts";
import { importLedgerFolder } from "../../src/services/sync/import-ledger.ts";
import { createTestKey, get, getJson, TEST_NOW } from "../helpers/api.ts";
import {
  insertUses,
  meteredApp,
  orgWithKey,
  TEST_REDIS_URL,
  uniquePrefix,
} from "../helpers/metering.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";
import { type ExportSpec, writeExport } from "./insights-helpers.ts";

const BANK = "/api/agent/bank-accounts";
const INVOICES = "/api/agent/invoices";
const STATUS = "/api/agent/status";
const HOUR = 3_600_000;

const closers: Metering[] = [];
afterAll(async () => {
  for (const m of closers) await m.close();
});

/** Two bank accounts and enough invoices for a body past the compression threshold. */
function exportSpec(extraTxn: boolean): ExportSpec {
  return {
    contacts: [{ n: 1, name: "Acme Pty Ltd", customer: true }],
    docs: Array.from({ length: 12 }, (_, i) => ({
      n: i + 1,
      contact: 1,
      date: "2026-02-02",
      due: "2026-03-02",
      status: "AUTHORISED" as const,
      lines: [{ account: "sales" as const, amount: `${100 + i}.00` }],
    })),
    txns: extraTxn
      ? [{ n: 1, type: "RECEIVE", date: "2026-03-01", total: "500.00", account: "sales" }]
      : [],
  };
}

/** The real app and metering, an imported organisation, a plain key and a READ_SENSITIVE one. */
async function world(opts: { burstLimit?: number } = {}) {
  const t = await meteredApp(
    opts.burstLimit ? { limits: limitsWith({ burstLimit: opts.burstLimit }) } : {},
  );
  const scopes: Scope[] = ["READ_BANK", "READ_INVOICES"];
  const { org, key } = await orgWithKey(t.db, { scopes });
  await importLedgerFolder(t.db, {
    orgId: org.id,
    folder: writeExport(exportSpec(false)),
    now: TEST_NOW,
  });
  const sensitive = await createTestKey(t.db, {
    kind: "ORG",
    orgId: org.id,
    label: "sensitive",
    scopes,
    sensitive: true,
  });
  const used = async () => {
    const s = await getJson<StatusResponse>(t.app, STATUS, key.key);
    expect(s.status, s.text).toBe(200);
    return s.body.usage?.used;
  };
  const audited = async (keyId: string, status: number) => {
    await t.flushAudit(); // the batched writer commits what it holds
    const rows = await t.db
      .select({ route: auditEvents.route })
      .from(auditEvents)
      .where(and(eq(auditEvents.keyId, keyId), eq(auditEvents.status, status)));
    return rows.map((r) => r.route);
  };
  return { t, org, key, sensitive, used, audited };
}

describe(`conditional requests (${testDriver})`, () => {
  it("tags a GET, answers 304 without a body to a matching If-None-Match, and charges it no credit", async () => {
    const w = await world();
    const first = await get(w.t.app, BANK, w.key.key);
    expect(first.status).toBe(200);
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]{22}"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    expect(first.headers.get("vary")).toBe("Authorization, Accept-Encoding");
    const before = await w.used();

    const again = await get(w.t.app, BANK, w.key.key, { "If-None-Match": tag ?? "" });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    expect(again.headers.get("cache-control")).toBe("private, no-cache");
    expect(again.headers.get("ratelimit-policy")).toContain('"burst";q=60;w=60');
    // Also as one of several tags, and as `*`.
    const listed = await get(w.t.app, BANK, w.key.key, { "If-None-Match": `"other", ${tag}` });
    expect(listed.status).toBe(304);
    expect((await get(w.t.app, BANK, w.key.key, { "If-None-Match": "*" })).status).toBe(304);
    expect(await w.used()).toBe(before);

    // A tag that no longer matches: 200 with the body, and one credit.
    const stale = await get(w.t.app, BANK, w.key.key, { "If-None-Match": 'W/"stale"' });
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe(await first.clone().text());
    expect(await w.used()).toBe((before ?? 0) + 1);

    // Every 304 is audited like any other answer.
    expect(await w.audited(w.key.id, 304)).toEqual([BANK, BANK, BANK]);
  });

  it("counts a 304 against the burst cap", async () => {
    const w = await world({ burstLimit: 3 });
    const first = await get(w.t.app, BANK, w.key.key);
    const tag = first.headers.get("etag") ?? "";
    const conditional = { "If-None-Match": tag };
    expect((await get(w.t.app, BANK, w.key.key, conditional)).status).toBe(304);
    expect((await get(w.t.app, BANK, w.key.key, conditional)).status).toBe(304);
    const refused = await getJson(w.t.app, BANK, w.key.key, conditional);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe("rate_limited");
    expect(await w.audited(w.key.id, 429)).toEqual([BANK]);
    // One credit for the one 200; none for the 304s or the refusal.
    expect(await w.used()).toBe(1);
  });

  /** Uses all but `left` of the key's credits (before its first charged call: the store's count). */
  async function spendAllBut(w: Awaited<ReturnType<typeof world>>, left: number) {
    const limit = (await getJson<StatusResponse>(w.t.app, STATUS, w.key.key)).body.usage?.limit;
    await insertUses(w.t.db, {
      userId: w.org.ownerUserId,
      billingAccountId: w.org.billingAccountId,
      orgId: w.org.id,
      keyId: w.key.id,
      times: Array.from({ length: (limit ?? 0) - left }, () => new Date(TEST_NOW.getTime() - HOUR)),
    });
  }

  it("answers 304 to a matching If-None-Match with no credit left; 429 credits_exhausted otherwise", async () => {
    const w = await world();
    await spendAllBut(w, 2);
    const first = await getJson<{ billingAlert?: { kind: string } }>(w.t.app, BANK, w.key.key);
    expect(first.body.billingAlert?.kind).toBe("credits_low");
    const tag = first.res.headers.get("etag") ?? "";
    // The last credit: the alert's wording and kind changed, the data did not; the tag leaves
    // the billing alert out.
    const last = await getJson<{ billingAlert?: { kind: string } }>(w.t.app, BANK, w.key.key);
    expect(last.body.billingAlert?.kind).toBe("credits_exhausted");
    expect(last.res.headers.get("etag")).toBe(tag);
    const used = await w.used();

    const again = await get(w.t.app, BANK, w.key.key, { "If-None-Match": tag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(tag);
    expect(again.headers.get("retry-after")).toBeNull();
    expect(again.headers.get("ratelimit")).toContain('"credits";r=0');

    const stale = await getJson(w.t.app, BANK, w.key.key, { "If-None-Match": 'W/"stale"' });
    expect(stale.status).toBe(429);
    expect(stale.body.error).toBe("credits_exhausted");
    expect(stale.res.headers.get("retry-after")).not.toBeNull();
    const plain = await getJson(w.t.app, BANK, w.key.key);
    expect(plain.body.error).toBe("credits_exhausted");

    expect(await w.used()).toBe(used);
    expect(await w.audited(w.key.id, 304)).toEqual([BANK]);
    expect(await w.audited(w.key.id, 429)).toEqual([BANK, BANK]);
  });

  it("still counts a 304 without credits against the burst cap", async () => {
    const w = await world({ burstLimit: 2 });
    await spendAllBut(w, 1);
    const tag = (await get(w.t.app, BANK, w.key.key)).headers.get("etag") ?? "";
    expect((await get(w.t.app, BANK, w.key.key, { "If-None-Match": tag })).status).toBe(304);
    const capped = await getJson(w.t.app, BANK, w.key.key, { "If-None-Match": tag });
    expect(capped.status).toBe(429);
    expect(capped.body.error).toBe("rate_limited");
  });

  it("changes the tag when a sensitive flag changes what the key sees, or a new import lands", async () => {
    const w = await world();
    const tagOf = async (key: string, path = BANK) => {
      const r = await get(w.t.app, path, key);
      expect(r.status).toBe(200);
      return r.headers.get("etag") ?? "";
    };
    const plain = await tagOf(w.key.key);
    const withSensitive = await tagOf(w.sensitive.key);
    // The same body, but the keys' views differ (READ_SENSITIVE): one's tag never answers the other.
    expect(withSensitive).not.toBe(plain);
    expect((await get(w.t.app, BANK, w.sensitive.key, { "If-None-Match": plain })).status).toBe(
      200,
    );

    await setSensitive(w.t.db, { orgId: w.org.id, target: { account: "091" }, sensitive: true });
    const flagged = await get(w.t.app, BANK, w.key.key, { "If-None-Match": plain });
    expect(flagged.status).toBe(200);
    expect(((await flagged.json()) as { redactedItemCount: number }).redactedItemCount).toBe(1);
    const plainFlagged = flagged.headers.get("etag") ?? "";
    expect(plainFlagged).not.toBe(plain);
    // A READ_SENSITIVE key still reads the same accounts: its representation did not change.
    expect(await tagOf(w.sensitive.key)).toBe(withSensitive);

    const invoices = await tagOf(w.key.key, INVOICES);
    await importLedgerFolder(w.t.db, {
      orgId: w.org.id,
      folder: writeExport(exportSpec(true)),
      now: new Date(TEST_NOW.getTime() + HOUR),
    });
    const afterImport = await get(w.t.app, BANK, w.key.key, { "If-None-Match": plainFlagged });
    expect(afterImport.status).toBe(200);
    expect(afterImport.headers.get("etag")).not.toBe(plainFlagged);
    // Documents unchanged by the import: the invoices list reads the same, so its tag holds.
    expect((await get(w.t.app, INVOICES, w.key.key, { "If-None-Match": invoices })).status).toBe(
      304,
    );
  });

  it("compresses a large body when the client accepts it; it decompresses to the same bytes", async () => {
    const w = await world();
    const plain = await get(w.t.app, INVOICES, w.key.key);
    expect(plain.headers.get("content-encoding")).toBeNull();
    const bytes = Buffer.from(await plain.arrayBuffer());
    expect(bytes.byteLength).toBeGreaterThan(1024);
    const tag = plain.headers.get("etag");

    const br = await get(w.t.app, INVOICES, w.key.key, { "Accept-Encoding": "gzip, deflate, br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    const brBytes = Buffer.from(await br.arrayBuffer());
    expect(brBytes.byteLength).toBeLessThan(bytes.byteLength);
    expect(brotliDecompressSync(brBytes).equals(bytes)).toBe(true);
    // The same (weak) tag for every coding of one representation.
    expect(br.headers.get("etag")).toBe(tag);

    const gz = await get(w.t.app, INVOICES, w.key.key, { "Accept-Encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(bytes)).toBe(true);

    // HEAD: the GET's headers for the identity body, nothing compressed and thrown away.
    const head = await w.t.app.request(INVOICES, {
      method: "HEAD",
      headers: { Authorization: `Bearer ${w.key.key}`, "Accept-Encoding": "br, gzip" },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-encoding")).toBeNull();
    expect(head.headers.get("content-length")).toBe(String(bytes.byteLength));
    expect(head.headers.get("etag")).toBe(tag);
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    // A small body goes uncompressed whatever the client accepts.
    const status = await get(w.t.app, STATUS, w.key.key, { "Accept-Encoding": "br" });
    const statusText = await status.text();
    if (Buffer.byteLength(statusText) < 1024) {
      expect(status.headers.get("content-encoding")).toBeNull();
      expect(JSON.parse(statusText).key.label).toBe("metered");
    }
  });
});

describe(`BURST_LIMIT_PER_MINUTE (${testDriver})`, () => {
  async function configuredApp(env: Record<string, string>) {
    const database = await getTestDatabase();
    const config = ConfigSchema.parse(env);
    const logger = createLogger("silent");
    const metering = await deploymentMetering(config, {
      db: database.db,
      logger,
      redisKeyPrefix: uniquePrefix(),
    });
    closers.push(metering);
    const app = createApp({ config, database, clock: fixedClock(TEST_NOW), logger, metering });
    const { key } = await orgWithKey(database.db);
    return { app, key: key.key };
  }

  it.each([
    ["in process", {}],
    ["through Redis", { REDIS_URL: TEST_REDIS_URL }],
  ])("sets the burst cap, reported in RateLimit-Policy and /status (%s)", async (_, env) => {
    const { app, key } = await configuredApp({ ...env, BURST_LIMIT_PER_MINUTE: "2" });
    const s = await getJson<StatusResponse>(app, STATUS, key);
    expect(s.status, s.text).toBe(200);
    expect(s.body.burstLimit).toEqual({ limit: 2, windowSeconds: 60 });
    const ok = await get(app, BANK, key);
    expect(ok.headers.get("ratelimit-policy")).toMatch(/^"burst";q=2;w=60, "credits"/);
    expect((await get(app, BANK, key)).status).toBe(200);
    const refused = await getJson(app, BANK, key);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toContain("at most 2 requests per 60 seconds");
  });

  it("unset, keeps the spec's 60", async () => {
    const { app, key } = await configuredApp({});
    const s = await getJson<StatusResponse>(app, STATUS, key);
    expect(s.body.burstLimit).toEqual({ limit: 60, windowSeconds: 60 });
    expect(s.res.headers.get("ratelimit-policy")).toMatch(/^"burst";q=60;w=60, "credits"/);
  });
});
