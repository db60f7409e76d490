import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import type { CliContext } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { briefCommand } from "../../src/cli/commands/brief.ts";
import { ConfigSchema } from "../../src/config.ts";
import { DailyBriefResponseSchema } from "../../src/contracts/agent/daily-brief.ts";
import { type Database, openPostgres } from "../../src/db/client.ts";
import { validateBrief } from "../../src/domain/brief/validate.ts";
import { WITHHELD_SECTION } from "../../src/domain/brief/withhold.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import type { DailyBriefResponse } from "../../src/http/routes/agent/daily-brief/index.ts";
import { createScheduler } from "../../src/jobs/scheduler.ts";
import { createLogger } from "../../src/logger.ts";
import { loadBriefFacts } from "../../src/services/brief/brief-facts.ts";
import { getLatestBrief } from "../../src/services/brief/get-daily-brief.ts";
import { runBrief } from "../../src/services/brief/run-brief.ts";
import { setSensitive } from "../../src/services/sensitivity/set-sensitive.ts";
import { systemContext } from "../../src/services/system-context.ts";
import { createTestKey, getJson, rowsOf } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";
import { type DocSpec, type ExportSpec, insightsWorld } from "./insights-helpers.ts";

const NOW = new Date("2026-03-10T01:00:00.000Z");
const TICK = new Date("2026-03-10T06:05:00.000Z");

let n = 0;
const open = (contact: number, date: string, due: string, amount: string): DocSpec => {
  n += 1;
  return {
    n,
    contact,
    date,
    due,
    status: "AUTHORISED",
    lines: [{ account: "sales", amount, tax: "0" }],
  };
};
const paid = (contact: number, date: string, amount: string): DocSpec => {
  n += 1;
  return {
    n,
    contact,
    date,
    status: "PAID",
    lines: [{ account: "sales", amount, tax: "0" }],
    payments: [{ n, date, amount }],
  };
};

const SPEC: ExportSpec = {
  contacts: [
    { n: 1, name: "Harbour Cafe", customer: true },
    { n: 2, name: "Bay Club", customer: true },
    { n: 3, name: "Secret Client", customer: true },
    { n: 4, name: "Harbourside Property", supplier: true },
  ],
  docs: [
    paid(1, "2026-01-10", "5000"),
    paid(2, "2026-02-10", "3000"),
    open(1, "2026-03-01", "2026-03-25", "12000"),
    open(2, "2026-01-15", "2026-02-14", "4200"),
    open(3, "2026-01-20", "2026-02-19", "9000"),
    {
      n: 500,
      type: "ACCPAY",
      contact: 4,
      date: "2026-03-05",
      due: "2026-04-15",
      status: "AUTHORISED",
      lines: [{ account: "rent", amount: "30000" }],
    },
  ],
};

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** A fake OpenAI-compatible endpoint on 127.0.0.1 answering with `reply(body)`. */
async function fakeLlm(
  reply: (body: Record<string, unknown>) => { status?: number; content?: string; delayMs?: number },
) {
  const requests: {
    body: Record<string, unknown>;
    auth: string | undefined;
    url: string | undefined;
  }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let raw = "";
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      requests.push({ body, auth: req.headers.authorization, url: req.url });
      const r = reply(body);
      setTimeout(() => {
        res.writeHead(r.status ?? 200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            choices: [{ message: { role: "assistant", content: r.content ?? "" } }],
          }),
        );
      }, r.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

const LLM_PAYLOAD = {
  mainDriver: {
    headline: "Harbour Cafe carries the quarter",
    bodyMarkdown: "**Harbour Cafe** owes the largest open amount.",
    refs: [{ kind: "customer", key: "harbour-cafe", displayName: "Harbour Cafe" }],
  },
  riskSignal: {
    headline: "Rent lands in week 6",
    bodyMarkdown: "Watch *week 6*.",
    refs: [{ kind: "week", weekNumber: 6 }],
  },
  recommendedAction: {
    headline: "Chase Bay Club today",
    bodyMarkdown: "Send a reminder.",
    refs: [{ kind: "customer", key: "bay-club", displayName: "Bay Club" }],
  },
};

describe(`daily brief (${testDriver})`, () => {
  it("answers 404 no_brief_yet, then the stored brief after the 06:00 UTC tick", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [3], plan: "Free" });
    const path = `/api/agent/orgs/${w.orgId}/daily-brief`;
    const before = await getJson(w.t.app, path, w.plain);
    expect([before.status, before.body.error]).toEqual([404, "no_brief_yet"]);

    const scheduler = createScheduler({
      db: w.t.db,
      clock: fixedClock(new Date("2026-03-10T05:59:00.000Z")),
      logger: createLogger("silent"),
      config: ConfigSchema.parse({}),
      orgIds: [w.orgId],
    });
    expect((await scheduler.tick()).briefs).toEqual([]); // before 06:00 UTC
    const at6 = createScheduler({
      db: w.t.db,
      clock: fixedClock(TICK),
      logger: createLogger("silent"),
      config: ConfigSchema.parse({}),
      orgIds: [w.orgId],
    });
    expect((await at6.tick()).briefs).toEqual([
      { orgId: w.orgId, ok: true, created: true, tier: "rules" },
    ]);

    const r = await getJson<DailyBriefResponse>(w.t.app, path, w.plain);
    expect(r.status, r.text).toBe(200);
    expect(DailyBriefResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toMatchObject({
      orgId: w.orgId,
      asOfDate: "2026-03-10",
      generatedAt: TICK.toISOString(),
      generatorTier: "rules",
    });
    // The main driver is the customer owed most; the sensitive one is never named.
    expect(r.body.payload.mainDriver.refs).toEqual([
      { kind: "customer", key: "harbour-cafe", displayName: "Harbour Cafe" },
    ]);
    expect(r.body.payload.recommendedAction.headline).toBe(
      "Chase Bay Club for AUD 4,200.00 overdue",
    );
    expect(r.text).not.toContain("Secret Client");
    const facts = await loadBriefFacts(await systemContext(w.t.db, w.orgId, TICK), "2026-03-10");
    expect(validateBrief(r.body.payload, facts).ok).toBe(true);
    expect(facts.forbiddenNames).toContain("Secret Client");
    // The dashboard reads the same row.
    expect(await getLatestBrief(w.t.db, w.orgId)).toEqual({ ...r.body });

    // Any key of the organisation may read it; a second tick the same day changes nothing.
    const bankOnly = await createTestKey(
      w.t.db,
      { kind: "ORG", orgId: w.orgId, label: "bank", scopes: ["READ_BANK"] },
      NOW,
    );
    expect((await getJson(w.t.app, path, bankOnly.key)).status).toBe(200);
    const again = createScheduler({
      db: w.t.db,
      clock: fixedClock(new Date("2026-03-10T09:00:00.000Z")),
      logger: createLogger("silent"),
      config: ConfigSchema.parse({}),
      orgIds: [w.orgId],
    });
    expect((await again.tick()).briefs).toEqual([]);
    expect((await getJson<DailyBriefResponse>(w.t.app, path, w.plain)).body.generatedAt).toBe(
      TICK.toISOString(),
    );
  });

  it("withholds a section naming a contact flagged sensitive after the brief was written", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [3], plan: "Free" });
    await runBrief(w.t.db, { orgId: w.orgId, asOfDate: "2026-03-10", now: TICK });
    const path = `/api/agent/orgs/${w.orgId}/daily-brief`;
    const before = await getJson<DailyBriefResponse>(w.t.app, path, w.sensitive);
    expect(before.body.payload.mainDriver.refs).toEqual([
      { kind: "customer", key: "harbour-cafe", displayName: "Harbour Cafe" },
    ]);
    const [cafe] = rowsOf<{ id: string }>(
      await w.t.db.execute(
        sql`SELECT id FROM contacts WHERE org_id = ${w.orgId} AND name = 'Harbour Cafe'`,
      ),
    );
    await setSensitive(w.t.db, {
      orgId: w.orgId,
      target: { contact: cafe?.id ?? "" },
      sensitive: true,
    });
    // Every key reads the brief (READ_SENSITIVE or not), as it was written for all of them.
    for (const key of [w.plain, w.sensitive]) {
      const r = await getJson<DailyBriefResponse>(w.t.app, path, key);
      expect(r.status).toBe(200);
      expect(DailyBriefResponseSchema.parse(r.body)).toEqual(r.body);
      expect(r.text).not.toMatch(/harbour.?cafe/i);
      expect(r.body.payload.mainDriver).toEqual(WITHHELD_SECTION);
      // Sections that do not name it are served as written.
      expect(r.body.payload.recommendedAction).toEqual(before.body.payload.recommendedAction);
      expect(r.body.generatedAt).toBe(before.body.generatedAt);
    }
    // The stored row is unchanged: the next brief is written without the name.
    expect((await getLatestBrief(w.t.db, w.orgId))?.payload).toEqual(before.body.payload);
  });

  it("answers 403 when orgId is not the key's organisation, and has no flat form", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const other = await createTestOrg(w.t.db, { now: NOW });
    await runBrief(w.t.db, { orgId: other.id, asOfDate: "2026-03-10", now: TICK });
    for (const id of [other.id, "org_doesnotexist", "not an id"]) {
      const r = await getJson(
        w.t.app,
        `/api/agent/orgs/${encodeURIComponent(id)}/daily-brief`,
        w.plain,
      );
      expect([r.status, r.body.error], r.text).toEqual([403, "forbidden"]);
    }
    expect((await getJson(w.t.app, "/api/agent/daily-brief", w.plain)).status).toBe(404);
    const doc = await getJson<{ paths: Record<string, { get: { operationId: string } }> }>(
      w.t.app,
      "/api/agent/openapi.json",
    );
    expect(doc.body.paths["/api/agent/orgs/{orgId}/daily-brief"]?.get.operationId).toBe(
      "getDailyBriefForOrg",
    );
    expect(doc.body.paths["/api/agent/daily-brief"]).toBeUndefined();
  });

  it("serves a partner key the brief of a linked client", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    await runBrief(w.t.db, { orgId: w.orgId, asOfDate: "2026-03-10", now: TICK });
    const { createPartner, linkPartner } = await import("../../src/services/partners/partners.ts");
    const partner = await createPartner(w.t.db, { name: "Practice" }, NOW);
    await linkPartner(w.t.db, partner.id, w.orgId, NOW);
    const k = await createTestKey(
      w.t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "p" },
      NOW,
    );
    const r = await getJson<DailyBriefResponse>(
      w.t.app,
      `/api/agent/orgs/${w.orgId}/daily-brief`,
      k.key,
    );
    expect([r.status, r.body.orgId]).toEqual([200, w.orgId]);
  });

  it("uses a valid LLM brief for a premium plan and sends the key only to the endpoint", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [3] }); // Wallet trial
    const llm = await fakeLlm(() => ({ content: JSON.stringify(LLM_PAYLOAD) }));
    const lines: string[] = [];
    const logger = createLogger(
      "trace",
      new Writable({
        write(c, _e, done) {
          lines.push(String(c));
          done();
        },
      }),
    );
    const config = ConfigSchema.parse({
      CASHRUNWAY_LLM_URL: llm.url,
      CASHRUNWAY_LLM_MODEL: "fake-1",
      CASHRUNWAY_LLM_API_KEY: "sk-test-secret-123",
    });
    const s = createScheduler({
      db: w.t.db,
      clock: fixedClock(TICK),
      logger,
      config,
      orgIds: [w.orgId],
    });
    expect((await s.tick()).briefs).toEqual([
      { orgId: w.orgId, ok: true, created: true, tier: "llm" },
    ]);
    expect(llm.requests).toHaveLength(1);
    expect(llm.requests[0]?.url).toBe("/v1/chat/completions");
    expect(llm.requests[0]?.auth).toBe("Bearer sk-test-secret-123");
    expect(llm.requests[0]?.body).toMatchObject({ model: "fake-1", temperature: 0 });
    // The facts sent hold no sensitive name.
    expect(JSON.stringify(llm.requests[0]?.body)).not.toContain("Secret Client");
    const r = await getJson<DailyBriefResponse>(
      w.t.app,
      `/api/agent/orgs/${w.orgId}/daily-brief`,
      w.plain,
    );
    expect(r.body.generatorTier).toBe("llm");
    expect(r.body.payload).toEqual(LLM_PAYLOAD);
    expect(lines.join("\n")).not.toContain("sk-test-secret-123");
  });

  it.each([
    [
      "an invalid brief (headline too long, unknown customer)",
      () => ({
        content: JSON.stringify({
          ...LLM_PAYLOAD,
          mainDriver: {
            ...LLM_PAYLOAD.mainDriver,
            headline: "x".repeat(90),
            refs: [{ kind: "customer", key: "ghost", displayName: "Ghost" }],
          },
        }),
      }),
      /invalid LLM brief: mainDriver.headline is longer than 80/,
    ],
    [
      "a sensitive name",
      () => ({
        content: JSON.stringify({
          ...LLM_PAYLOAD,
          riskSignal: { ...LLM_PAYLOAD.riskSignal, bodyMarkdown: "Secret Client owes *9,000*." },
        }),
      }),
      /sensitive/,
    ],
    [
      "text that is not JSON",
      () => ({ content: "Here is your brief: great week!" }),
      /not a JSON object/,
    ],
    ["an HTTP error", () => ({ status: 500 }), /HTTP 500/],
    ["a timeout", () => ({ content: JSON.stringify(LLM_PAYLOAD), delayMs: 1500 }), /timed out/],
  ])("falls back to the rules on %s", async (_what, reply, reason) => {
    const w = await insightsWorld(SPEC, { now: NOW, sensitiveContacts: [3] });
    const llm = await fakeLlm(reply);
    const warnings: string[] = [];
    const r = await runBrief(w.t.db, {
      orgId: w.orgId,
      asOfDate: "2026-03-10",
      now: TICK,
      llm: { url: llm.url, model: "fake-1", apiKey: "sk-x", timeoutMs: 500 },
      onFallback: (m) => warnings.push(m),
    });
    expect(r.created).toBe(true);
    expect(r.brief.generatorTier).toBe("rules");
    expect(r.fallbackReason).toMatch(reason);
    expect(warnings).toEqual([r.fallbackReason]);
    expect(r.fallbackReason).not.toContain("sk-x");
    const stored = rowsOf<{ reason: string }>(
      await w.t.db.execute(
        sql`SELECT fallback_reason AS reason FROM daily_briefs WHERE org_id = ${w.orgId}`,
      ),
    );
    expect(stored[0]?.reason).toMatch(reason);
  });

  it("keeps the rules tier for a Free plan even with an LLM configured", async () => {
    const w = await insightsWorld(SPEC, { now: NOW, plan: "Free" });
    const llm = await fakeLlm(() => ({ content: JSON.stringify(LLM_PAYLOAD) }));
    const r = await runBrief(w.t.db, {
      orgId: w.orgId,
      asOfDate: "2026-03-10",
      now: TICK,
      llm: { url: llm.url, model: "m", timeoutMs: 1000 },
    });
    expect(r.brief.generatorTier).toBe("rules");
    expect(llm.requests).toHaveLength(0);
  });

  it("has a command that writes the brief for an organisation and date, once", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const database = await getTestDatabase();
    const printed: Record<string, unknown>[] = [];
    const ctx: CliContext = {
      config: ConfigSchema.parse({}),
      clock: fixedClock(TICK),
      json: true,
      openDatabase: async () => ({ ...database, close: async () => {} }),
      print: (data) => printed.push(data),
    };
    const run = (argv: string[]) =>
      briefCommand.run(parseCommandLine(briefCommand, argv).args, ctx);
    await run(["--org", w.orgId, "--date", "2026-03-09"]);
    await run(["--org", w.orgId, "--date", "2026-03-09"]);
    await run(["--org", w.orgId]);
    expect(printed.map((p) => [p.asOfDate, p.created, p.generatorTier])).toEqual([
      ["2026-03-09", true, "rules"],
      ["2026-03-09", false, "rules"],
      ["2026-03-10", true, "rules"],
    ]);
    await expect(run(["--org", w.orgId, "--date", "2026-02-30"])).rejects.toThrow(/--date/);
    // A day after today would become the brief the API serves: refused.
    await expect(run(["--org", w.orgId, "--date", "2026-03-11"])).rejects.toThrow(
      "--date 2026-03-11 is after today (2026-03-10, UTC)",
    );
    // The latest day is what the API serves.
    expect((await getLatestBrief(w.t.db, w.orgId))?.asOfDate).toBe("2026-03-10");
  });
});

describe(`scheduler (${testDriver})`, () => {
  it("runs each organisation's baselines and brief once with two instances ticking together", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    // Two instances: on PostgreSQL each with its own connection pool, as two processes would be.
    const pools: Database[] = process.env.DATABASE_URL
      ? [openPostgres(process.env.DATABASE_URL, 4), openPostgres(process.env.DATABASE_URL, 4)]
      : [await getTestDatabase(), await getTestDatabase()];
    try {
      // The next day: the forecast and baselines (new local day) and the brief are all due.
      const next = new Date("2026-03-11T06:01:00.000Z");
      const make = (db: Database, id: string) =>
        createScheduler({
          db: db.db,
          clock: fixedClock(next),
          logger: createLogger("silent"),
          config: ConfigSchema.parse({}),
          orgIds: [w.orgId],
          instanceId: id,
        });
      const [a, b] = [
        make(pools[0] as Database, "instance-a"),
        make(pools[1] as Database, "instance-b"),
      ];
      const reports = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      const briefs = reports.flatMap((r) => r.briefs);
      const baselines = reports.flatMap((r) => r.baselines);
      expect(briefs.filter((x) => x.created)).toHaveLength(1);
      expect(baselines.filter((x) => x.ok)).toHaveLength(1);
      expect(reports.flatMap((r) => r.forecasts)).toEqual([
        { orgId: w.orgId, ok: true, recomputed: true },
      ]);
      const rows = rowsOf<{ job: string; status: string; n: number }>(
        await w.t.db.execute(sql`
          SELECT job, status, count(*)::int AS n FROM job_runs WHERE org_id = ${w.orgId}
          GROUP BY job, status ORDER BY job`),
      );
      expect(rows).toEqual([
        { job: "baselines", status: "succeeded", n: 1 },
        { job: "brief", status: "succeeded", n: 1 },
        { job: "forecast", status: "succeeded", n: 1 },
      ]);
      const count = rowsOf<{ n: number }>(
        await w.t.db.execute(
          sql`SELECT count(*)::int AS n FROM daily_briefs WHERE org_id = ${w.orgId} AND as_of_date = '2026-03-11'`,
        ),
      );
      expect(count[0]?.n).toBe(1);
    } finally {
      if (process.env.DATABASE_URL) await Promise.all(pools.map((p) => p.close()));
    }
  });

  it("retries a failed run after its backoff and takes over a stale claim", async () => {
    const w = await insightsWorld(SPEC, { now: NOW });
    const { claimRun, finishRun } = await import("../../src/jobs/job-runs.ts");
    const t0 = new Date("2026-03-12T06:00:00.000Z");
    const key = { job: "brief", runKey: `${w.orgId}:2026-03-12`, orgId: w.orgId };
    const first = await claimRun(w.t.db, { ...key, instance: "a", now: t0 });
    expect(first?.attempts).toBe(1);
    // Held and fresh: nobody else gets it.
    expect(
      await claimRun(w.t.db, { ...key, instance: "b", now: new Date(t0.getTime() + 60_000) }),
    ).toBeNull();
    // Stale after 15 minutes: taken over.
    const taken = await claimRun(w.t.db, {
      ...key,
      instance: "b",
      now: new Date(t0.getTime() + 16 * 60_000),
    });
    expect(taken?.attempts).toBe(2);
    await finishRun(w.t.db, {
      claim: taken as NonNullable<typeof taken>,
      instance: "b",
      now: new Date(t0.getTime() + 17 * 60_000),
      outcome: "failed",
      error: "boom",
    });
    // Failed: retried only after 2^2 = 4 minutes.
    expect(
      await claimRun(w.t.db, { ...key, instance: "c", now: new Date(t0.getTime() + 18 * 60_000) }),
    ).toBeNull();
    const retried = await claimRun(w.t.db, {
      ...key,
      instance: "c",
      now: new Date(t0.getTime() + 22 * 60_000),
    });
    expect(retried?.attempts).toBe(3);
    await finishRun(w.t.db, {
      claim: retried as NonNullable<typeof retried>,
      instance: "c",
      now: new Date(t0.getTime() + 23 * 60_000),
      outcome: "failed",
      error: "boom",
    });
    // Three attempts: given up.
    expect(
      await claimRun(w.t.db, { ...key, instance: "d", now: new Date(t0.getTime() + 120 * 60_000) }),
    ).toBeNull();
  });
});
