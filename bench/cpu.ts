import { readdirSync, readFileSync } from "node:fs";

/** CPU time (ms) spent so far by this process (all threads) and by the PostgreSQL server. */
export interface CpuReading {
  nodeMs: number;
  /** Per PostgreSQL process; null where /proc is not readable (the figure is then left out). */
  postgres: Map<string, number> | null;
}

const TICK_MS = 10; // Linux USER_HZ is 100 on every architecture we run on

/**
 * User + system time of each process named `postgres` (the server, its backends and helpers),
 * by pid, from /proc/<pid>/stat; null where /proc is not readable (not Linux).
 */
function postgresCpuByPid(): Map<string, number> | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const byPid = new Map<string, number>();
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    const open = stat.indexOf("(");
    const close = stat.lastIndexOf(")");
    if (stat.slice(open + 1, close) !== "postgres") continue;
    // Fields after the name: state is field 3; utime and stime are fields 14 and 15.
    const fields = stat.slice(close + 2).split(" ");
    byPid.set(pid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
  }
  return byPid;
}

export function readCpu(): CpuReading {
  const u = process.cpuUsage();
  return { nodeMs: (u.user + u.system) / 1000, postgres: postgresCpuByPid() };
}

/**
 * CPU milliseconds per request between two readings. A PostgreSQL process that started meanwhile
 * (an autovacuum worker) counts whole; one that exited meanwhile took its time with it and is
 * left out, so the PostgreSQL figure is a lower bound.
 */
export function cpuPerRequest(
  before: CpuReading,
  after: CpuReading,
  requests: number,
): { node: number; postgres: number | null } {
  const n = Math.max(1, requests);
  let postgres: number | null = null;
  if (before.postgres && after.postgres) {
    postgres = 0;
    for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  }
  return {
    node: (after.nodeMs - before.nodeMs) / n,
    postgres: postgres === null ? null : postgres / n,
  };
}
