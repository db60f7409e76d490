import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import { ConfigSchema } from "../../config.ts";
import { fixedClock } from "../../domain/clock.ts";
import { authenticateKey } from "../../services/keys/authenticate-key.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";
import { parseCommandLine } from "../command.ts";
import { demoCommand } from "./demo.ts";
import { demoFolder } from "./demo-run.ts";

const NOW = new Date("2026-03-10T01:30:00Z");
const dirs: string[] = [];

afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Runs `demo …` against the test database; returns what it printed (JSON objects, human lines). */
async function demo(argv: string[], json = true) {
  const database = await getTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "demo-cli-"));
  dirs.push(dataDir);
  const printed: Record<string, unknown>[] = [];
  const lines: string[] = [];
  const ctx: CliContext = {
    config: ConfigSchema.parse({ DATA_DIR: dataDir }),
    clock: fixedClock(NOW),
    json,
    // The shared test database stays open: close() is a no-op here.
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data, human) => {
      printed.push(data);
      lines.push(...(Array.isArray(human) ? human : [human]));
    },
  };
  await demoCommand.run(parseCommandLine(demoCommand, json ? [...argv, "--json"] : argv).args, ctx);
  return { printed, lines, dataDir };
}

describe(`demo command (${testDriver})`, () => {
  it("with --json prints one object with the organisation, the key and the counts", async () => {
    const { printed, dataDir } = await demo(["--seed", "cli test", "--invoices", "80"]);
    expect(printed).toHaveLength(1);
    const out = printed[0] as Record<string, unknown> & { counts: { invoices: number } };
    expect(out).toMatchObject({
      orgId: expect.stringMatching(/^org_/),
      key: expect.stringMatching(/^cr_live_/),
      prefix: expect.any(String),
      syncRunId: expect.stringMatching(/^syn_/),
      seed: "cli test",
    });
    expect(out.counts.invoices).toBe(80);
    const { db } = await getTestDatabase();
    expect((await authenticateKey(db, String(out.key)))?.orgId).toBe(out.orgId);
    // The export folder lives under DATA_DIR, named by seed and size.
    expect(out.folder).toBe(demoFolder(dataDir, "cli test", 80));
    expect(String(out.folder)).toBe(join(dataDir, "demo-ledger-cli_test-80"));
    expect(existsSync(join(String(out.folder), "Invoices.json"))).toBe(true);
  });

  it("prints the organisation, the key once and a curl line", async () => {
    const { lines } = await demo(["--invoices", "30"], false);
    const text = lines.join("\n");
    const key = /cr_live_\S+/.exec(text)?.[0] ?? "";
    expect(text).toMatch(/Created demo organisation org_\S+ \("Demo Pty Ltd"\)/);
    expect(lines.filter((l) => l.startsWith("API key (shown once"))).toHaveLength(1);
    expect(text).toContain(
      `curl -H "Authorization: Bearer ${key}" http://127.0.0.1:3000/api/agent/bank-accounts`,
    );
  });

  it("refuses --invoices outside 1..200000, unknown flags and positional arguments", async () => {
    for (const argv of [
      ["--invoices", "0"],
      ["--invoices", "200001"],
      ["--invoices", "12x"],
      ["--seeds", "1"],
      ["extra"],
      ["--seed", " "],
    ]) {
      await expect(demo(argv), argv.join(" ")).rejects.toThrow(UsageError);
    }
  });
});
