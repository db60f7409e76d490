/**
 * Command start time, before and after the compiled runtime: each command line run as a fresh
 * process, interleaved round by round, through
 *   source   — the TypeScript sources through tsx (how bin/cashrunway.mjs ran before dist/);
 *   compiled — bin/cashrunway.mjs, which runs dist/cli (built by `npm install`).
 * Prints wall time (median, min, max) and the process's CPU time (user + system, median), which
 * a loaded machine inflates less. Needs GNU time (/usr/bin/time). `keys list` reads DATA_DIR, or DATABASE_URL when set.
 *
 *   npx tsx bench/start-time.ts            (BENCH_ROUNDS=7)
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const REPO = join(import.meta.dirname, "..");
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 7;
const RUNNERS = {
  source: ["--conditions=@cashrunway/source", "--import", "tsx", join(REPO, "src/cli/main.ts")],
  compiled: [join(REPO, "bin/cashrunway.mjs")],
} as const;
const COMMANDS = [["--version"], ["keys", "list"]];

interface Sample {
  wall: number;
  cpu: number;
}

/** One run as a fresh process, timed by GNU time (wall to 10 ms, CPU from the child's rusage). */
function once(runner: readonly string[], args: string[]): Sample {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S", process.execPath, ...runner, ...args], {
    encoding: "utf8",
    env: { ...process.env, LOG_LEVEL: "silent" },
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed: ${r.stderr}`);
  const [wall, user, system] = (r.stderr.trim().split("\n").at(-1) ?? "").split(" ").map(Number);
  return { wall: (wall ?? 0) * 1000, cpu: ((user ?? 0) + (system ?? 0)) * 1000 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const results = new Map<string, Sample[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const args of COMMANDS) {
    for (const [name, runner] of Object.entries(RUNNERS)) {
      const key = `${args.join(" ")} | ${name}`;
      results.set(key, [...(results.get(key) ?? []), once(runner, args)]);
    }
  }
}
for (const args of COMMANDS) {
  const line = args.join(" ");
  const of = (name: string) => results.get(`${line} | ${name}`) ?? [];
  for (const name of Object.keys(RUNNERS)) {
    const walls = of(name).map((s) => s.wall);
    const cpus = of(name).map((s) => s.cpu);
    console.log(
      `cashrunway ${line.padEnd(10)} ${name.padEnd(8)} wall median ${median(walls).toFixed(0)} ms (min ${Math.min(...walls).toFixed(0)}, max ${Math.max(...walls).toFixed(0)}), cpu median ${median(cpus).toFixed(0)} ms`,
    );
  }
  const ratio = median(of("source").map((s) => s.wall)) / median(of("compiled").map((s) => s.wall));
  console.log(`cashrunway ${line.padEnd(10)} source/compiled wall ratio ${ratio.toFixed(1)}x`);
}
