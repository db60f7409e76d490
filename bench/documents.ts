/**
 * Measurements of the documents lists (issue 3) against the bench organisation of `npm run bench`
 * (100,000 sales invoices; generated and imported on first use, then reused):
 *
 *   npx tsx bench/documents.ts                        # every mode, PostgreSQL
 *   BENCH_DOC_MODE=memory node --expose-gc --import tsx bench/documents.ts
 *
 * Modes (BENCH_DOC_MODE, comma list; default `memory,latency,load`; memory first, in a fresh
 * process, so that its peak is not another mode's):
 *   memory  — peak resident memory added by one `autoPaginate=true&lines=true` response (5,000
 *             invoices with their lines), then by 4 of them at once;
 *   latency — sequential in-process timings, interleaved in one run, median, p90, min and max
 *             of BENCH_DOC_RUNS (30): the real endpoint (whole pipeline, to the response's bytes)
 *             against the bare SQL of the same rows plus serialization (JSON.stringify and its
 *             UTF-8 bytes) for autoPaginate with and without lines (5,000 of 100,000, so
 *             truncated, with the exact count), and of a whole set under 5,000 rows (4,855
 *             invoices of June 2026, whose fetch gives totalCount), against the bare aggregate
 *             for totals over every invoice, plus two references: the bare page with the exact
 *             count the spec requires, and the pipeline floor (limit=1 against the verb alone);
 *   load    — autocannon at BENCH_CONNECTIONS (50) for BENCH_DOC_LOAD (endpoint names of
 *             bench/endpoints.ts, default `invoices-page-paid`): ceiling (static bytes), baseline
 *             (the service verb behind a bare route, no pipeline), real; BENCH_ROUNDS × BENCH_SECONDS.
 *
 * BENCH_DRIVERS (postgres; `pglite` uses .bench/pglite as run.ts does), BENCH_DATABASE_URL.
 * Metering is the no-op hook here (a burst cap of 60 per minute would end a load test at once;
 * bench/run.ts measures the metering path); audit rows go through the production
 * BatchedAuditWriter; the pipeline is otherwise the real one.
 */
import { sql } from "drizzle-orm";
import { Hono } from "hono";
import { createApp } from "../src/app.ts";
import { cursorSecretOf, loadConfig } from "../src/config.ts";
import { offsetClock } from "../src/domain/clock.ts";
import { ALL_BUT_SENSITIVE } from "../src/domain/scopes.ts";
import { noopMetering } from "../src/http/pipeline/metering.ts";
import { createLogger } from "../src/logger.ts";
import { BatchedAuditWriter } from "../src/services/audit/audit-writer.ts";
import type { ServiceContext } from "../src/services/context.ts";
import { listInvoices } from "../src/services/invoices/list-invoices.ts";
import { authenticateKey } from "../src/services/keys/authenticate-key.ts";
import { createApiKey } from "../src/services/keys/create-api-key.ts";
import { resolveTargetOrg } from "../src/services/keys/resolve-target-org.ts";
import { listPaging } from "../src/services/lists/paging.ts";
import { BENCH_NOW, ensureBenchOrg, openBenchDatabase } from "./database.ts";
import { ENDPOINTS } from "./endpoints.ts";
import {
  formatCpu,
  type LoadResult,
  listen,
  load,
  median,
  percentile,
  staticServer,
  summariseLoads,
} from "./load.ts";

const env = process.env;
const DRIVERS = (env.BENCH_DRIVERS ?? "postgres").split(",").map((s) => s.trim());
const MODES = (env.BENCH_DOC_MODE ?? "memory,latency,load").split(",").map((s) => s.trim());
const RUNS = Number(env.BENCH_DOC_RUNS ?? 30);
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 50);
const LOAD = (env.BENCH_DOC_LOAD ?? "invoices-page-paid").split(",").map((s) => s.trim());
const MB = 1024 * 1024;
/** A date range holding fewer than 5,000 of the bench organisation's invoices (4,855). */
const WHOLE_FROM = "2026-06-07";
const WHOLE_TO = "2026-06-30";

const fmt = (n: number, d = 1) => n.toFixed(d);

/** The rows of a raw `db.execute()` (the same `{ rows }` shape on both drivers). */
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

interface Timing {
  p50: number;
  p90: number;
  min: number;
  max: number;
}

/** "min–max" of a timing, in ms. */
const range = (t: Timing) => `${fmt(t.min)}–${fmt(t.max)}`;

/** Times `fns` interleaved over RUNS runs (after 3 warm-ups); median, p90, min and max in ms. */
async function interleaved(fns: Record<string, () => Promise<unknown>>) {
  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(fns)) samples[name] = [];
  for (let run = -3; run < RUNS; run++) {
    for (const [name, fn] of Object.entries(fns)) {
      const t = performance.now();
      await fn();
      if (run >= 0) samples[name]?.push(performance.now() - t);
    }
  }
  const out: Record<string, Timing> = {};
  for (const [name, s] of Object.entries(samples)) {
    out[name] = {
      p50: median(s),
      p90: percentile(s, 90),
      min: Math.min(...s),
      max: Math.max(...s),
    };
  }
  return out;
}

async function benchDriver(driver: string) {
  const database = await openBenchDatabase(driver);
  try {
    const { orgId } = await ensureBenchOrg(database);
    const clock = offsetClock(BENCH_NOW);
    const created = await createApiKey(
      database.db,
      {
        kind: "ORG",
        orgId,
        label: `bench documents ${new Date().toISOString()}`,
        scopes: [...ALL_BUT_SENSITIVE],
      },
      clock.now(),
    );
    const headers = { authorization: `Bearer ${created.key}` };
    const key = await authenticateKey(database.db, created.key);
    if (!key) throw new Error("bench key does not authenticate");
    const org = await resolveTargetOrg(database.db, key, undefined);
    const ctxFor = (): ServiceContext => ({
      db: database.db,
      now: clock.now(),
      org,
      actor: { type: "apiKey", key },
      scopes: key.scopes,
    });
    const config = loadConfig({ ...process.env, DATABASE_URL: undefined, LOG_LEVEL: "silent" });
    // What the routes pass the list verbs (made once: it also keeps the lists' sizes).
    const paging = listPaging(cursorSecretOf(config));
    // The production audit path (batched commits, as bench/run.ts and the server use).
    const auditWriter = new BatchedAuditWriter(database.db);
    const app = createApp({
      config,
      database,
      clock,
      logger: createLogger("silent"),
      metering: noopMetering,
      auditWriter,
    });
    const real = async (path: string) => {
      const res = await app.request(path, { headers });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
      return text;
    };
    /** The real endpoint to the response's bytes (what a server writes to the socket). */
    const realBytes = async (path: string) => {
      const res = await app.request(path, { headers });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      return res.arrayBuffer();
    };
    /** Serialization as a server does it: JSON text, then its UTF-8 bytes. */
    const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
    console.log(`\n== ${driver}: organisation ${orgId}`);

    if (MODES.includes("memory")) {
      const path = "/api/agent/invoices?autoPaginate=true&lines=true";
      await real("/api/agent/invoices?limit=5&lines=true"); // warm every code path but the big one
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const base = process.memoryUsage().rss;
      let peak = base;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 2);
      const body = await real(path);
      peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
      const one = peak - base;
      await Promise.all([real(path), real(path), real(path), real(path)]);
      peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
      clearInterval(sampler);
      console.log(
        `memory: one 5,000-invoice response with lines (${fmt(body.length / MB)} MB of JSON) ` +
          `raised peak RSS by ${fmt(one / MB)} MB (base ${fmt(base / MB)} MB${gc ? ", after gc" : ""}); ` +
          `four at once: +${fmt((peak - base) / MB)} MB`,
      );
    }

    if (MODES.includes("latency")) {
      const db = database.db;
      // The same rows as the endpoint's page query, in the same order (qualified: the text casts
      // of the select list must not become the sort keys).
      const rowsSql = sql`select id, external_id, invoice_number, reference, amount::text, currency,
          expected_date::text, actual_date::text, issue_date::text, status, ledger_status,
          contact_external_id, contact_name, category, document_date::text
        from cash_items where org_id = ${orgId} and source = 'LEDGER_INVOICE'
        order by cash_items.document_date desc, cash_items.id desc limit 5000`;
      const bareRows = async () => rowsOf(await db.execute(rowsSql));
      // The invoices dated from WHOLE_FROM to WHOLE_TO (4,855 in the bench organisation): the
      // same select, filtered, in the same order.
      const bareWhole = async () =>
        bytes({
          invoices: rowsOf(
            await db.execute(sql`select id, external_id, invoice_number, reference, amount::text,
                currency, expected_date::text, actual_date::text, issue_date::text, status,
                ledger_status, contact_external_id, contact_name, category, document_date::text
              from cash_items where org_id = ${orgId} and source = 'LEDGER_INVOICE'
                and document_date >= ${WHOLE_FROM} and document_date <= ${WHOLE_TO}
              order by cash_items.document_date desc, cash_items.id desc limit 5001`),
          ),
        });
      const bareAuto = async () => bytes({ invoices: await bareRows() });
      const bareAutoLines = async () => {
        const rows = await bareRows();
        const ids = rows.map((r) => r.id as string);
        const lines = rowsOf(
          await db.execute(sql`select id, cash_item_id, line_number, account_code, description,
              quantity::text, unit_amount::text, line_amount::text, tax_amount::text, tax_type,
              discount_rate::text, discount_amount::text, (quantity * unit_amount)::text as subtotal
            from cash_item_lines where org_id = ${orgId}
              and cash_item_id = any(${sql.param(ids)}::text[])
            order by cash_item_id, line_number`),
        );
        const byItem = new Map<string, unknown[]>();
        for (const l of lines) {
          const list = byItem.get(l.cash_item_id as string);
          if (list) list.push(l);
          else byItem.set(l.cash_item_id as string, [l]);
        }
        return bytes({
          invoices: rows.map((r) => ({ ...r, lines: byItem.get(r.id as string) ?? [] })),
        });
      };
      const bareTotals = async () =>
        bytes(
          rowsOf(
            await db.execute(sql`select ledger_status, currency, count(*)::int as count,
                sum(amount)::text as amount from cash_items
              where org_id = ${orgId} and source = 'LEDGER_INVOICE' group by 1, 2`),
          ),
        );
      // For context: the bare page with the exact count the spec requires (totalCount), run in
      // parallel as the endpoint does.
      const bareCount = async () => {
        const [rows, count] = await Promise.all([
          bareRows(),
          db.execute(sql`select count(*)::int as n from cash_items
            where org_id = ${orgId} and source = 'LEDGER_INVOICE'`),
        ]);
        return bytes({ invoices: rows, totalCount: rowsOf(count)[0]?.n });
      };
      const small = await interleaved({
        real: () => realBytes("/api/agent/invoices?limit=1"),
        service: () =>
          listInvoices({
            ctx: ctxFor(),
            input: { limit: 1, lines: false, autoPaginate: false, totals: false },
            paging,
          }),
      });
      console.log(
        `latency pipeline floor (limit=1): real p50 ${fmt(small.real?.p50 ?? 0)} ms, service ` +
          `alone p50 ${fmt(small.service?.p50 ?? 0)} ms`,
      );
      const withCount = await interleaved({
        real: () => realBytes("/api/agent/invoices?autoPaginate=true"),
        bare: bareCount,
      });
      console.log(
        `latency autoPaginate 5,000 vs bare page + exact count: real p50 ` +
          `${fmt(withCount.real?.p50 ?? 0)} ms, bare p50 ${fmt(withCount.bare?.p50 ?? 0)} ms; ` +
          `real/bare ${fmt((withCount.real?.p50 ?? 0) / (withCount.bare?.p50 ?? 1), 2)}`,
      );
      const cases: [string, string, () => Promise<unknown>][] = [
        ["autoPaginate 5,000", "/api/agent/invoices?autoPaginate=true", bareAuto],
        [
          "autoPaginate 5,000 + lines",
          "/api/agent/invoices?autoPaginate=true&lines=true",
          bareAutoLines,
        ],
        ["totals over all invoices", "/api/agent/invoices?totals=true&limit=1", bareTotals],
        // A whole matched set of at most 5,000 rows: the fetch gives totalCount (no count wait).
        [
          `autoPaginate whole set (${WHOLE_FROM}…${WHOLE_TO})`,
          `/api/agent/invoices?autoPaginate=true&dateFrom=${WHOLE_FROM}&dateTo=${WHOLE_TO}`,
          bareWhole,
        ],
      ];
      for (const [label, path, bare] of cases) {
        const t = await interleaved({ real: () => realBytes(path), bare });
        const r = t.real as Timing;
        const b = t.bare as Timing;
        console.log(
          `latency ${label}: real p50 ${fmt(r.p50)} ms (p90 ${fmt(r.p90)}, ${range(r)}), bare p50 ` +
            `${fmt(b.p50)} ms (p90 ${fmt(b.p90)}, ${range(b)}); real/bare ${fmt(r.p50 / b.p50, 2)} ` +
            `(${RUNS} interleaved runs)`,
        );
      }
    }

    if (MODES.includes("load")) {
      for (const name of LOAD) {
        const endpoint = ENDPOINTS.find((e) => e.name === name);
        if (!endpoint) throw new Error(`no bench endpoint ${name}`);
        const pathname = endpoint.path.split("?")[0] ?? endpoint.path;
        const bare = new Hono();
        // Registered by path name: the query string is the baseline's own input.
        bare.get(pathname, async (c) => c.json(await endpoint.baseline(ctxFor())));
        const ceiling = await staticServer(await real(endpoint.path));
        const baseline = await listen(bare.fetch);
        const realServer = await listen(app.fetch);
        const targets = { ceiling: ceiling.url, baseline: baseline.url, real: realServer.url };
        const samples: Record<string, LoadResult[]> = { ceiling: [], baseline: [], real: [] };
        for (const url of Object.values(targets)) {
          await load(url + endpoint.path, { connections: CONNECTIONS, seconds: 1, headers });
        }
        for (let round = 0; round < ROUNDS; round++) {
          for (const [n, url] of Object.entries(targets)) {
            samples[n]?.push(
              await load(url + endpoint.path, {
                connections: CONNECTIONS,
                seconds: SECONDS,
                headers,
              }),
            );
          }
        }
        ceiling.server.close();
        await baseline.close();
        await realServer.close();
        const line = (n: string) => {
          const x = summariseLoads(samples[n] ?? []);
          return `  ${n.padEnd(9)} ${fmt(x.requestsPerSecond).padStart(8)} req/s  p50 ${fmt(x.p50).padStart(6)} ms  p99 ${fmt(x.p99).padStart(6)} ms  ${formatCpu(x)}${x.non2xx || x.errors ? `  non-2xx ${x.non2xx} errors ${x.errors}` : ""}`;
        };
        const rps = (n: string) => summariseLoads(samples[n] ?? []).requestsPerSecond;
        console.log(`load ${name} (${CONNECTIONS} connections, ${ROUNDS}×${SECONDS}s, medians)`);
        for (const n of ["ceiling", "baseline", "real"]) console.log(line(n));
        console.log(`  real/baseline ${fmt(rps("real") / rps("baseline"), 2)}`);
      }
    }
    await auditWriter.flush();
  } finally {
    await database.close();
  }
}

for (const driver of DRIVERS) await benchDriver(driver);
process.exit(0);
