/**
 * `npm run bench:compression`: what response compression and conditional requests do to agent
 * responses (docs/api.md, "Conditional requests, caching and compression").
 *
 * 1. Payloads: every benchmarked endpoint's body on the bench organisation, identity, Brotli
 *    (the served quality) and gzip bytes; their median (the p50 payload).
 * 2. Codec cost, in process, on the `/bank-accounts` body and on the endpoint body nearest the p50
 *    payload: Brotli 4 (served), Brotli 11 (zlib's default), gzip 6 (served), and the entity
 *    tag's SHA-256; median, min and max of 200 runs each.
 * 3. Load: `/bank-accounts` and the p50 endpoint through the whole pipeline (no-op metering, so
 *    that credits do not run out; the verified-key cache and the batched audit writer as the
 *    server runs them), with `Accept-Encoding` identity, br and gzip, and a conditional request
 *    answered 304, interleaved round by round in rotating order (autocannon, BENCH_CONNECTIONS connections):
 *    requests/s, p50, p99 latency, bytes per response; medians over rounds with min and max,
 *    and each variant's requests/s over identity's, round by round.
 *
 * Environment: BENCH_DRIVERS (pglite; or postgres at BENCH_DATABASE_URL), BENCH_INVOICES (1,100
 * here: the demo organisation's size), BENCH_SECONDS (3), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10).
 */
import { createHash } from "node:crypto";
import { loadavg } from "node:os";
import { promisify } from "node:util";
import { brotliCompress, gzip } from "node:zlib";

process.env.BENCH_INVOICES ??= "1100";

const { createApp } = await import("../src/app.ts");
const { loadConfig } = await import("../src/config.ts");
const { offsetClock } = await import("../src/domain/clock.ts");
const { ALL_BUT_SENSITIVE } = await import("../src/domain/scopes.ts");
const { BROTLI_QUALITY, compress } = await import("../src/http/compression.ts");
const { noopMetering } = await import("../src/http/pipeline/metering.ts");
const { createLogger } = await import("../src/logger.ts");
const { BatchedAuditWriter } = await import("../src/services/audit/audit-writer.ts");
const { createApiKey } = await import("../src/services/keys/create-api-key.ts");
const { VerifiedKeyCache } = await import("../src/services/keys/verified-key-cache.ts");
const { BENCH_NOW, ensureBenchOrg, openBenchDatabase } = await import("./database.ts");
const { ENDPOINTS } = await import("./endpoints.ts");
const { listen, load, median, percentile } = await import("./load.ts");

const env = process.env;
const DRIVER = (env.BENCH_DRIVERS ?? "pglite").split(",")[0] ?? "pglite";
const SECONDS = Number(env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);
const load1 = () => loadavg()[0]?.toFixed(1);

const stats = (xs: number[]) =>
  `median ${median(xs).toFixed(2)} (min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)})`;

async function timed(op: () => Promise<unknown> | unknown, runs = 200): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await op();
    out.push(performance.now() - t);
  }
  return out;
}

const database = await openBenchDatabase(DRIVER);
try {
  console.log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const { orgId } = await ensureBenchOrg(database);
  const clock = offsetClock(BENCH_NOW);
  const created = await createApiKey(
    database.db,
    {
      kind: "ORG",
      orgId,
      label: `bench ${new Date().toISOString()}`,
      scopes: [...ALL_BUT_SENSITIVE],
    },
    clock.now(),
  );
  const auth = { authorization: `Bearer ${created.key}` };
  const logger = createLogger("silent");
  const config = loadConfig({ ...env, DATABASE_URL: undefined, LOG_LEVEL: "silent" });
  const keyCache = new VerifiedKeyCache(database.db, { logger });
  await keyCache.start();
  const auditWriter = new BatchedAuditWriter(database.db);
  const app = createApp({
    config,
    database,
    clock,
    logger,
    auditWriter,
    metering: noopMetering,
    keyCache,
  });

  // 1. Payloads.
  const bodyOf = async (path: string, encoding: string) => {
    const res = await app.request(path, { headers: { ...auth, "accept-encoding": encoding } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { bytes: Buffer.from(await res.arrayBuffer()), tag: res.headers.get("etag") ?? "" };
  };
  const sizes: { name: string; path: string; identity: number; br: number; gzip: number }[] = [];
  for (const e of ENDPOINTS) {
    const identity = (await bodyOf(e.path, "identity")).bytes.byteLength;
    const br = (await bodyOf(e.path, "br")).bytes.byteLength;
    const gzipped = (await bodyOf(e.path, "gzip")).bytes.byteLength;
    sizes.push({ name: e.name, path: e.path, identity, br, gzip: gzipped });
  }
  console.log("\npayloads (bytes): endpoint, identity, br, gzip, br/identity");
  for (const s of [...sizes].sort((a, b) => a.identity - b.identity)) {
    console.log(
      `  ${s.name.padEnd(22)} ${String(s.identity).padStart(9)} ${String(s.br).padStart(8)} ${String(s.gzip).padStart(8)}  ${(s.br / s.identity).toFixed(2)}`,
    );
  }
  const p50 = percentile(
    sizes.map((s) => s.identity),
    50,
  );
  const nearest = [...sizes].sort(
    (a, b) => Math.abs(a.identity - p50) - Math.abs(b.identity - p50),
  )[0];
  if (!nearest) throw new Error("no endpoints");
  console.log(`p50 payload ${p50} bytes; nearest endpoint: ${nearest.name} (${nearest.identity})`);

  // 2. Codec cost.
  const subjects = [
    ENDPOINTS.find((e) => e.name === "bank-accounts"),
    ENDPOINTS.find((e) => e.name === nearest.name),
  ].filter((e, i, all) => e && all.indexOf(e) === i) as typeof ENDPOINTS;
  console.log(`\ncodec cost (ms per body, 200 runs; load ${load1()})`);
  for (const e of subjects) {
    const body = (await bodyOf(e.path, "identity")).bytes;
    const br11 = await brotli(body);
    console.log(`  ${e.name} (${body.byteLength} bytes; Brotli 11: ${br11.byteLength} bytes)`);
    const rows: [string, () => Promise<unknown> | unknown][] = [
      [`brotli ${BROTLI_QUALITY} (served)`, () => compress(body, "br")],
      ["brotli 11 (zlib default)", () => brotli(body)],
      ["gzip 6 (served)", () => compress(body, "gzip")],
      ["gzip 6 via zlib directly", () => gz(body)],
      ["sha-256 (entity tag)", () => createHash("sha256").update(body).digest()],
    ];
    for (const [name, op] of rows) console.log(`    ${name.padEnd(26)} ${stats(await timed(op))}`);
  }
  const mb = Buffer.alloc(4 << 20, "x");
  const hash = await timed(() => createHash("sha256").update(mb).digest(), 20);
  console.log(`  sha-256 of 4 MiB: ${stats(hash.map((ms) => ms / 4))} ms per MiB`);

  // 3. Load.
  const server = await listen(app.fetch);
  type Variant = "identity" | "br" | "gzip" | "304";
  const variants: Variant[] = ["identity", "br", "gzip", "304"];
  for (const e of subjects) {
    const { tag } = await bodyOf(e.path, "identity");
    const wire: Record<Variant, number> = {
      identity: (await bodyOf(e.path, "identity")).bytes.byteLength,
      br: (await bodyOf(e.path, "br")).bytes.byteLength,
      gzip: (await bodyOf(e.path, "gzip")).bytes.byteLength,
      "304": 0,
    };
    const results = new Map<Variant, { rps: number[]; p50: number[]; p99: number[] }>();
    for (let round = 0; round < ROUNDS; round++) {
      // Each round starts one variant later, so every variant takes every position in turn
      // (the first after a pause meets a colder process).
      const order = variants.map((_, i) => variants[(i + round) % variants.length] as Variant);
      for (const v of order) {
        const headers: Record<string, string> = {
          ...auth,
          "accept-encoding": v === "304" ? "br" : v,
          ...(v === "304" ? { "if-none-match": tag } : {}),
        };
        const r = await load(`${server.url}${e.path}`, {
          connections: CONNECTIONS,
          seconds: SECONDS,
          headers,
        });
        if (r.non2xx > 0 && v !== "304") throw new Error(`${e.path} ${v}: ${r.non2xx} non-2xx`);
        const acc = results.get(v) ?? { rps: [], p50: [], p99: [] };
        acc.rps.push(r.requestsPerSecond);
        acc.p50.push(r.p50);
        acc.p99.push(r.p99);
        results.set(v, acc);
      }
    }
    console.log(
      `\nload ${e.path}: ${ROUNDS} rounds x ${SECONDS} s, ${CONNECTIONS} connections (load ${load1()})`,
    );
    const identity = results.get("identity");
    for (const v of variants) {
      const r = results.get(v);
      if (!r || !identity) continue;
      const ratios = r.rps.map((x, i) => x / (identity.rps[i] ?? x));
      console.log(
        `  ${v.padEnd(8)} body ${String(wire[v]).padStart(7)} B  req/s ${stats(r.rps)}  ` +
          `p50 ${median(r.p50)} ms (min ${Math.min(...r.p50)}, max ${Math.max(...r.p50)})  ` +
          `p99 ${median(r.p99)} ms  vs identity req/s ${stats(ratios)}`,
      );
    }
  }
  await server.close();
  keyCache.stop();
  await auditWriter.close();
  console.log(
    `\nload average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
} finally {
  await database.close();
}
