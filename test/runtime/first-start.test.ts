import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const bin = join(import.meta.dirname, "../../bin/cashrunway.mjs");
const started: ChildProcess[] = [];

/**
 * The environment without DATABASE_URL: `npm start` on a bare machine uses the embedded database,
 * also when this suite runs against PostgreSQL.
 */
const embedded = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL"),
);

/** `cashrunway serve` (what `npm start` runs) on DATA_DIR, until `until` shows on stdout. */
function serve(env: Record<string, string>, until: RegExp) {
  const child = spawn(process.execPath, [bin, "serve"], {
    env: { ...embedded, PORT: "0", CASHRUNWAY_JOBS: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr.on("data", (d) => {
    stderr += String(d);
  });
  return new Promise<{ stdout: string; stderr: string; child: ChildProcess }>((done, fail) => {
    child.stdout.on("data", () => {
      if (until.test(stdout)) done({ stdout, stderr, child });
    });
    child.once("exit", (code) => fail(new Error(`serve exited ${code}: ${stderr}\n${stdout}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
  });

afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
});

describe("npm start on an empty data directory (the README's first command)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cr-first-start-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("says what it is doing on stdout, logs JSON on stderr, prints a key whose curl line works, then every restart ends with the settings URL, the owner and the command for a new key", async () => {
    const first = await serve({ DATA_DIR: dataDir }, /Stop with Ctrl-C\.\n/);
    expect(first.stdout).toMatch(/^Opening the embedded database and applying migrations… done/m);
    expect(first.stdout).toMatch(/^ {2}\[#{24}\] 4\/4 written$/m);
    expect(first.stdout).toMatch(
      /^Importing it, computing forecasts, baselines and summaries… done/m,
    );
    // stdout holds no log line; stderr holds only JSON log lines (off a terminal).
    expect(first.stdout).not.toMatch(/"level":/);
    for (const line of first.stderr.split("\n").filter((l) => l.startsWith("{")))
      expect(JSON.parse(line)).toHaveProperty("msg");

    const curl = first.stdout.match(/curl -s -H "Authorization: Bearer (\S+)" (\S+)/);
    expect(curl, first.stdout).not.toBeNull();
    const [, key, url] = curl as RegExpMatchArray;
    const res = await fetch(url as string, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const base = new URL(url as string).origin;
    const owner = first.stdout.match(/owner: +(\S+@\S+)/)?.[1];
    expect(owner).toMatch(/@cashrunway\.local$/);
    expect(first.stdout).toContain(`Settings and dashboard: ${base}/settings/login`);
    expect(first.stdout).toMatch(/npx cashrunway keys create --org org_\w+ --label "My agent"/);
    await stop(first.child);

    const again = await serve({ DATA_DIR: dataDir }, /Stop with Ctrl-C\.\n/);
    expect(again.stdout).not.toContain("cr_live_");
    expect(again.stdout).toContain(`owner:                ${owner}`);
    expect(again.stdout).toMatch(
      /Settings and dashboard: http:\/\/127\.0\.0\.1:\d+\/settings\/login/,
    );
    expect(again.stdout).toMatch(/npx cashrunway keys create --org org_\w+/);
    await stop(again.child);
  }, 400_000);
});
