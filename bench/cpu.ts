import { readdirSync, readFileSync } from "node:fs";

/** CPU time (ms) spent so far by this process (all threads) and by the PostgreSQL server. */
export interface CpuReading {
  nodeMs: number;
  /** Null where /proc is not readable (not Linux): the figure is then left out. */
  postgresMs: number | null;
}

const TICK_MS = 10; // Linux USER_HZ is 100 on every architecture we run on

/**
 * User + system time of every process named `postgres` (the server, its backends and helpers),
 * from /proc/<pid>/stat. Backends that exit between two readings take their time with them, so
 * this is for comparing runs that keep their connections open (the pool does).
 */
function postgresCpuMs(): number | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let ticks = 0;
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
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_MS;
}

export function readCpu(): CpuReading {
  const u = process.cpuUsage();
  return { nodeMs: (u.user + u.system) / 1000, postgresMs: postgresCpuMs() };
}

/** CPU milliseconds per request between two readings. */
export function cpuPerRequest(
  before: CpuReading,
  after: CpuReading,
  requests: number,
): { node: number; postgres: number | null } {
  const n = Math.max(1, requests);
  return {
    node: (after.nodeMs - before.nodeMs) / n,
    postgres:
      before.postgresMs === null || after.postgresMs === null
        ? null
        : (after.postgresMs - before.postgresMs) / n,
  };
}
