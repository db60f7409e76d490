/**
 * `npm run bench:mcp`: what the MCP surfaces cost.
 *
 * 1. A tool call over Streamable HTTP (`POST /mcp`, `tools/call`) against the same endpoint's GET,
 *    on one server with the production wiring (real metering with the burst cap raised, the
 *    verified-key cache, the batched audit writer), interleaved round by round with autocannon:
 *    requests/s, p50 and p99 of each, and MCP/GET ratios per round (median, min, max).
 * 2. The stdio server (`packages/mcp/bin/cashrunway-mcp.js`, built: `npm run packages:build`)
 *    from spawn to its first tool result (initialize, then tools/call), against the same server.
 *
 * Environment: BENCH_SECONDS (5), BENCH_ROUNDS (5), BENCH_CONNECTIONS (10), BENCH_STARTS (7),
 * BENCH_DATABASE_URL (PostgreSQL; default: embedded PGlite in memory).
 */
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import autocannon from "autocannon";
import { createApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { type Database, migratePostgres, openPglite, openPostgres } from "../src/db/client.ts";
import { offsetClock } from "../src/domain/clock.ts";
import { limitsWith } from "../src/domain/metering/plans.ts";
import { createMetering } from "../src/http/pipeline/metering.ts";
import { createHttpServer } from "../src/http/server.ts";
import { createLogger } from "../src/logger.ts";
import { BatchedAuditWriter } from "../src/services/audit/audit-writer.ts";
import { setBilling } from "../src/services/billing/set-billing.ts";
import { seedDemo } from "../src/services/demo/seed-demo.ts";
import { VerifiedKeyCache } from "../src/services/keys/verified-key-cache.ts";
import { median } from "./load.ts";

const env = process.env;
const SECONDS = Number(env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const STARTS = Number(env.BENCH_STARTS ?? 7);
const NOW = new Date("2026-11-22T01:00:00Z");

/** The endpoints compared: the cheapest route (worst case for the ratio) and a summary. */
const CASES = [
  { tool: "bank_accounts_list", path: "/api/agent/bank-accounts", args: {} },
  { tool: "revenue_summary", path: "/api/agent/revenue/summary", args: {} },
] as const;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function cannon(opts: autocannon.Options): Promise<Run> {
  const r = await autocannon({ connections: CONNECTIONS, duration: SECONDS, workers: 1, ...opts });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

async function openDatabase(): Promise<Database> {
  if (!env.BENCH_DATABASE_URL) return openPglite();
  await migratePostgres(env.BENCH_DATABASE_URL);
  return openPostgres(env.BENCH_DATABASE_URL);
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

async function main() {
  const database = await openDatabase();
  const clock = offsetClock(NOW);
  process.stdout.write(
    `seeding a demo organisation (${env.BENCH_DATABASE_URL ? "postgres" : "pglite"})…\n`,
  );
  const seeded = await seedDemo(database.db, {
    seed: "bench-mcp",
    now: NOW,
    invoices: 400,
    folder: mkdtempSync(join(tmpdir(), "bench-mcp-")),
  });
  // Every call is metered for real; the burst cap is raised and the plan has top-up so that a
  // benchmark's thousands of calls a minute are admitted through the normal path.
  await setBilling(
    database.db,
    { orgId: seeded.orgId, plan: "Reserve", status: "active", autoTopUp: true },
    NOW,
  );
  const logger = createLogger("silent");
  const metering = createMetering({
    db: database.db,
    logger,
    limits: limitsWith({ burstLimit: 1_000_000_000 }),
  });
  const keyCache = new VerifiedKeyCache(database.db, { logger });
  await keyCache.start();
  const auditWriter = new BatchedAuditWriter(database.db, { logger });
  const config = loadConfig({ ...env, DATABASE_URL: undefined, LOG_LEVEL: "silent" });
  const app = createApp({ config, database, clock, logger, metering, keyCache, auditWriter });
  const server = createHttpServer(app.fetch, { hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const auth = { authorization: `Bearer ${seeded.key}` };

  for (const c of CASES) {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: c.tool, arguments: c.args },
    });
    const mcp = {
      url: `${base}/mcp`,
      method: "POST" as const,
      headers: {
        ...auth,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body,
    };
    const check = await fetch(mcp.url, { method: "POST", headers: mcp.headers, body });
    const answer = (await check.json()) as { result?: { isError?: boolean } };
    if (!answer.result || answer.result.isError)
      throw new Error(`${c.tool}: ${JSON.stringify(answer).slice(0, 300)}`);
    // Warm-up of both paths.
    await cannon({ url: `${base}${c.path}`, headers: auth, duration: 2 });
    await cannon({ ...mcp, duration: 2 });
    const gets: Run[] = [];
    const mcps: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      if (round % 2 === 0) {
        gets.push(await cannon({ url: `${base}${c.path}`, headers: auth }));
        mcps.push(await cannon(mcp));
      } else {
        mcps.push(await cannon(mcp));
        gets.push(await cannon({ url: `${base}${c.path}`, headers: auth }));
      }
    }
    const bad = [...gets, ...mcps].reduce((n, r) => n + r.non2xx, 0);
    const stat = (runs: Run[], k: keyof Run) => median(runs.map((r) => r[k]));
    const ratios = (k: "rps" | "p50" | "p99") =>
      gets.map((g, i) => (mcps[i] as Run)[k] / g[k]).sort((a, b) => a - b);
    const line = (label: string, runs: Run[]) =>
      `  ${label.padEnd(22)} ${fmt(stat(runs, "rps"), 0).padStart(7)} req/s   p50 ${fmt(stat(runs, "p50"))} ms   p99 ${fmt(stat(runs, "p99"))} ms`;
    const ratioLine = (k: "rps" | "p50" | "p99") => {
      const r = ratios(k);
      return `  MCP/GET ${k.padEnd(4)} median ${fmt(median(r), 3)}  min ${fmt(r[0] ?? 0, 3)}  max ${fmt(r.at(-1) ?? 0, 3)}`;
    };
    process.stdout.write(
      `${[
        `\n${c.tool} vs GET ${c.path} (${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections; medians)`,
        line(`GET ${c.path.replace("/api/agent", "")}`, gets),
        line(`MCP ${c.tool}`, mcps),
        ratioLine("rps"),
        ratioLine("p50"),
        ratioLine("p99"),
        bad > 0 ? `  non-2xx answers: ${bad}` : "",
      ]
        .filter(Boolean)
        .join("\n")}\n`,
    );
  }

  // The stdio server, as a user's MCP client starts it, to its first tool result.
  const binary = fileURLToPath(new URL("../packages/mcp/bin/cashrunway-mcp.js", import.meta.url));
  const starts: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binary],
      env: { PATH: env.PATH ?? "", CASHRUNWAY_TOKEN: seeded.key, CASHRUNWAY_URL: base },
      stderr: "ignore",
    });
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(transport);
    const result = await client.callTool({ name: "revenue_summary", arguments: {} });
    if (result.isError) throw new Error("the stdio server's first call failed");
    starts.push(performance.now() - started);
    await client.close();
  }
  starts.sort((a, b) => a - b);
  process.stdout.write(
    `\nstdio server, spawn to first tool result (${STARTS} starts): median ${fmt(median(starts), 0)} ms, min ${fmt(starts[0] ?? 0, 0)} ms, max ${fmt(starts.at(-1) ?? 0, 0)} ms\n`,
  );

  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  keyCache.stop();
  await auditWriter.close();
  await metering.close();
  await database.close();
}

await main();
