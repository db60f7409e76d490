import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import autocannon from "autocannon";
import { createHttpServer } from "../src/http/server.ts";
import { cpuPerRequest, readCpu } from "./cpu.ts";

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /**
   * CPU milliseconds per request: this process (server and load generator together; the load
   * generator's share is the same for every target) and PostgreSQL (null on PGlite, which runs
   * inside this process, or where /proc is unreadable).
   */
  cpuNode: number;
  cpuPostgres: number | null;
}

/**
 * Runs autocannon against `url` in a worker thread, so the load generator does not share the
 * server's event loop. Latencies in milliseconds. With `rate`, requests are sent at that rate
 * whatever the answers' speed, so latencies are those of a server that is not saturated.
 */
export async function load(
  url: string,
  opts: {
    connections: number;
    seconds: number;
    headers?: Record<string, string>;
    /** Requests per second over all connections (open loop); absent: as fast as answered. */
    rate?: number;
  },
): Promise<LoadResult> {
  const before = readCpu();
  const result = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    workers: 1,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
  });
  const cpu = cpuPerRequest(before, readCpu(), result.requests.total);
  return {
    requestsPerSecond: result.requests.average,
    cpuNode: cpu.node,
    cpuPostgres: cpu.postgres,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Serves one fixed body: the ceiling of what any route could do with these bytes. */
export async function staticServer(
  body: string,
  contentType = "application/json",
): Promise<{ url: string; server: Server }> {
  const bytes = Buffer.from(body);
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": contentType, "content-length": bytes.length });
    res.end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Medians over rounds (requests/s, latencies, CPU per request); failures summed. */
export function summariseLoads(results: LoadResult[]): LoadResult {
  const pg = results.map((r) => r.cpuPostgres);
  return {
    requestsPerSecond: median(results.map((r) => r.requestsPerSecond)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    errors: results.reduce((a, r) => a + r.errors, 0),
    cpuNode: median(results.map((r) => r.cpuNode)),
    cpuPostgres: pg.some((x) => x === null) ? null : median(pg as number[]),
  };
}

/** `cpu 0.61+0.40 ms/req` (node + PostgreSQL), or node alone. */
export function formatCpu(r: LoadResult): string {
  const pg = r.cpuPostgres === null ? "" : `+${r.cpuPostgres.toFixed(2)}`;
  return `cpu ${r.cpuNode.toFixed(2)}${pg} ms/req`;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

/**
 * Round-by-round ratios of requests/s (`a[i] / b[i]`, the two targets measured in the same round):
 * median, min and max. Unlike the ratio of the two medians, a machine that drifts between rounds
 * moves both sides of each ratio alike.
 */
export function pairedRatios(
  a: readonly Pick<LoadResult, "requestsPerSecond">[],
  b: readonly Pick<LoadResult, "requestsPerSecond">[],
): { median: number; min: number; max: number } {
  if (a.length !== b.length) throw new Error("pairedRatios: rounds of different counts");
  const ratios = a.map((x, i) => x.requestsPerSecond / (b[i] as LoadResult).requestsPerSecond);
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/** p-th percentile (0..100) of a sample, nearest rank. */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank] ?? 0;
}

/**
 * Serves `fetch` on a free port of 127.0.0.1 as the production server does (src/main.ts: the same
 * adapter, with its JSON answers before the app).
 */
export async function listen(fetch: (req: Request) => Response | Promise<Response>) {
  const server = createHttpServer(fetch, { hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
