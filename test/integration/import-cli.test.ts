import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import type { CliContext } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { importCommand } from "../../src/cli/commands/import.ts";
import { ConfigSchema } from "../../src/config.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { ServiceError } from "../../src/services/errors.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/ledger-small", import.meta.url));
const NOW = new Date("2024-04-02T01:00:00.000Z");

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs `import …` against the test database; returns what it printed and what it threw. */
async function runImportCatching(argv: string[], json = true) {
  const database = await getTestDatabase();
  const printed: { data: Record<string, unknown>; human: string | string[] }[] = [];
  const args = parseCommandLine(importCommand, json ? [...argv, "--json"] : argv).args;
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(NOW),
    json,
    // The shared test database stays open: close() is a no-op here.
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data, human) => printed.push({ data, human }),
  };
  const error = await importCommand.run(args, ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { printed, error };
}

async function runImport(argv: string[], json = true) {
  const { printed, error } = await runImportCatching(argv, json);
  if (error) throw error;
  return printed;
}

describe(`import command (${testDriver})`, () => {
  it("imports a folder and prints one JSON object with the run and its counts", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const printed = await runImport(["--org", org.id, FIXTURE]);
    expect(printed).toHaveLength(1);
    expect(printed[0]?.data).toEqual({
      syncRunId: expect.stringMatching(/^syn_/),
      outcome: "succeeded",
      counts: expect.objectContaining({
        invoices: { read: 6, written: 6 },
        bills: { read: 2, written: 2 },
      }),
    });
    expect(Object.keys(printed[0]?.data ?? {})).toEqual(["syncRunId", "outcome", "counts"]);
  });

  it("prints a line per collection without --json", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const [out] = await runImport(["--org", org.id, FIXTURE], false);
    expect(out?.human).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Imported .* into org_\w+ \(sync run syn_\w+\)$/),
        expect.stringMatching(/^ {2}invoices +read 6, written 6$/),
      ]),
    );
  });

  it.each([
    [[FIXTURE], /--org is required/],
    [["--org", "org_x"], /missing FOLDER/],
    [["--org", "org_x", FIXTURE, "extra"], /unexpected argument "extra"/],
    [["--org", "org_x", "--since", "2024", FIXTURE], /unknown flag --since/],
    [["--org", "org_x", "/no/such/folder"], /is not a directory/],
    [["--org", "org_missing", FIXTURE], /no organisation "org_missing"/],
  ])("refuses bad arguments %j", async (argv, message) => {
    const error = await runImport(argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it("reports a malformed export in one line, after printing the failed run with --json", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const dir = mkdtempSync(join(tmpdir(), "ledger-cli-"));
    temps.push(dir);
    cpSync(FIXTURE, dir, { recursive: true });
    const path = join(dir, "Payments.json");
    const json = JSON.parse(readFileSync(path, "utf8"));
    json.Payments[0].Date = "someday";
    writeFileSync(path, JSON.stringify(json));

    const { printed, error } = await runImportCatching(["--org", org.id, dir]);
    expect(error).toBeInstanceOf(ServiceError);
    const problem =
      "Payments.json: Payments[0] (PaymentID 50000000-0000-4000-8000-000000000001): Date: expected a date";
    expect((error as Error).message).toMatch(/^import failed \(sync run syn_\w+\): /);
    expect((error as Error).message).toContain(problem);
    expect(printed).toHaveLength(1);
    expect(printed[0]?.data).toEqual({
      syncRunId: expect.stringMatching(/^syn_/),
      outcome: "failed",
      counts: expect.any(Object),
      error: expect.stringContaining(problem),
    });
  });
});
