import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import type { CliContext, Command } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { cashCommand } from "../../src/cli/commands/cash.ts";
import {
  backtestCommand,
  forecastCommand,
  scenarioCommand,
} from "../../src/cli/commands/forecast.ts";
import { ConfigSchema } from "../../src/config.ts";
import { bankAccounts, ledgerAccounts } from "../../src/db/schema/index.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { newId } from "../../src/domain/ids.ts";
import { ServiceError } from "../../src/services/errors.ts";
import { getForecast } from "../../src/services/forecast/get-forecast.ts";
import { systemContext } from "../../src/services/system-context.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const NOW = new Date("2026-03-02T03:04:05.000Z"); // Monday 2 March, Sydney

/** Runs a command against the test database with --json; returns the printed objects. */
async function run(command: Command, argv: string[]) {
  const database = await getTestDatabase();
  const printed: Record<string, unknown>[] = [];
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(NOW),
    json: true,
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data) => printed.push(data),
  };
  await command.run(parseCommandLine(command, [...argv, "--json"]).args, ctx);
  return printed;
}

async function orgWithCash(balance: string) {
  const { db } = await getTestDatabase();
  const org = await createTestOrg(db, { timezone: "Australia/Sydney" });
  const ledgerId = newId("acc");
  await db
    .insert(ledgerAccounts)
    .values({ id: ledgerId, orgId: org.id, externalId: ledgerId, name: "Cheque", type: "BANK" });
  await db.insert(bankAccounts).values({
    id: newId("bank"),
    orgId: org.id,
    ledgerAccountId: ledgerId,
    externalId: ledgerId,
    name: "Cheque",
    currency: "AUD",
    reconciledBalance: balance,
    statementBalance: balance,
    balanceSyncedAt: NOW,
  });
  return { db, org };
}

describe(`cash, forecast and scenario commands (${testDriver})`, () => {
  it("overrides the starting cash and clears it, recomputing the forecast each time", async () => {
    const { db, org } = await orgWithCash("1000");
    const [set] = await run(cashCommand, ["override", "--org", org.id, "--amount", "2500.50"]);
    expect(set).toMatchObject({
      override: { amount: "2500.5" },
      cashPosition: { source: "manual", startingCash: "2500.5", ledgerReconciledTotal: "1000" },
    });
    const ctx = await systemContext(db, org.id, NOW);
    expect((await getForecast({ ctx })).startingCash).toBe("2500.5");
    const [cleared] = await run(cashCommand, ["override", "--org", org.id, "--clear"]);
    expect(cleared).toMatchObject({
      override: null,
      cashPosition: { source: "ledger_reconciled", startingCash: "1000" },
    });
    expect((await getForecast({ ctx })).startingCash).toBe("1000");
  });

  it("refuses ambiguous or malformed overrides", async () => {
    const { org } = await orgWithCash("1");
    await expect(run(cashCommand, ["override", "--org", org.id])).rejects.toThrow(UsageError);
    await expect(
      run(cashCommand, ["override", "--org", org.id, "--amount", "1", "--clear"]),
    ).rejects.toThrow(UsageError);
    await expect(
      run(cashCommand, ["override", "--org", org.id, "--amount", "12,5"]),
    ).rejects.toThrow(ServiceError);
    await expect(
      run(cashCommand, ["override", "--org", "org_nope", "--amount", "1"]),
    ).rejects.toThrow(/no organisation/);
  });

  it("refuses amounts the forecast cannot hold to the cent, and stores nothing", async () => {
    const { org } = await orgWithCash("1");
    for (const amount of ["99999999999999999999999", "90071992547409.92", "0.105", "1e3"]) {
      await expect(
        run(cashCommand, ["override", "--org", org.id, "--amount", amount]),
      ).rejects.toThrow(/whole cents/);
      await expect(
        run(cashCommand, [
          "item",
          "add",
          "--org",
          org.id,
          "--out",
          "--amount",
          amount,
          "--date",
          "2026-03-18",
        ]),
      ).rejects.toThrow(/whole cents/);
    }
    const [shown] = await run(cashCommand, ["show", "--org", org.id]);
    expect(shown).toMatchObject({ source: "ledger_reconciled", startingCash: "1" });
    const [items] = await run(cashCommand, ["item", "list", "--org", org.id]);
    expect(items).toMatchObject({ items: [] });
    // The largest amount it holds is taken, and the forecast still computes.
    const [set] = await run(cashCommand, [
      "override",
      "--org",
      org.id,
      "--amount",
      "90071992547409.91",
    ]);
    expect(set).toMatchObject({ override: { amount: "90071992547409.91" } });
  });

  it("adds, lists and removes manual and pipeline items that the forecast counts", async () => {
    const { db, org } = await orgWithCash("0");
    const [manual] = await run(cashCommand, [
      "item",
      "add",
      "--org",
      org.id,
      "--out",
      "--amount",
      "300",
      "--date",
      "2026-03-10",
      "--description",
      "Tax instalment",
    ]);
    const [deal] = await run(cashCommand, [
      "item",
      "add",
      "--org",
      org.id,
      "--in",
      "--amount",
      "1000",
      "--date",
      "2026-03-18",
      "--probability",
      "0.25",
    ]);
    expect(manual).toMatchObject({ kind: "MANUAL", amount: "-300", date: "2026-03-10" });
    expect(deal).toMatchObject({ kind: "PIPELINE", amount: "1000", probability: "0.25" });
    const [list] = await run(cashCommand, ["item", "list", "--org", org.id]);
    expect((list?.items as unknown[] | undefined)?.length).toBe(2);
    const f = await getForecast({ ctx: await systemContext(db, org.id, NOW) });
    expect(f.weeks[1]).toMatchObject({ outflow: "300", itemIds: [manual?.id] });
    expect(f.weeks[2]).toMatchObject({
      inflow: "250",
      guaranteedInflow: "250",
      probabilityWeighted: true,
    });
    await run(cashCommand, ["item", "remove", "--org", org.id, String(deal?.id)]);
    const after = await getForecast({ ctx: await systemContext(db, org.id, NOW) });
    expect(after.totalInflow).toBe("0");
    await expect(
      run(cashCommand, ["item", "remove", "--org", org.id, String(deal?.id)]),
    ).rejects.toThrow(ServiceError);
  });

  it("creates and edits custom scenarios, which are computed at once", async () => {
    const { db, org } = await orgWithCash("0");
    await run(cashCommand, [
      "item",
      "add",
      "--org",
      org.id,
      "--in",
      "--amount",
      "1000",
      "--date",
      "2026-03-18",
      "--probability",
      "0.5",
    ]);
    const [created] = await run(scenarioCommand, [
      "create",
      "--org",
      org.id,
      "--name",
      "All deals",
      "--pipeline-conversion",
      "1",
    ]);
    expect(created).toMatchObject({
      kind: "CUSTOM",
      name: "All deals",
      assumptions: { pipelineConversionRate: 1 },
    });
    const ctx = await systemContext(db, org.id, NOW);
    expect((await getForecast({ ctx, scenarioId: String(created?.id) })).totalInflow).toBe("1000");
    await run(scenarioCommand, [
      "edit",
      String(created?.id),
      "--org",
      org.id,
      "--pipeline-conversion",
      "0.1",
      "--name",
      "Few deals",
    ]);
    const edited = await getForecast({ ctx, scenarioId: String(created?.id) });
    expect(edited).toMatchObject({ scenarioName: "Few deals", totalInflow: "100" });
    const [list] = await run(scenarioCommand, ["list", "--org", org.id]);
    expect((list?.scenarios as { kind: string }[] | undefined)?.map((s) => s.kind)).toEqual([
      "BASE",
      "BEST",
      "WORST",
      "CUSTOM",
    ]);
    const base = (list?.scenarios as { id: string; kind: string }[] | undefined)?.[0];
    await expect(
      run(scenarioCommand, ["edit", String(base?.id), "--org", org.id, "--payment-lag", "3"]),
    ).rejects.toThrow(/fixed rules/);
    await expect(
      run(scenarioCommand, ["create", "--org", org.id, "--name", "x", "--ar-haircut", "140"]),
    ).rejects.toThrow(/arHaircutPercent/);
    for (const lag of ["0x10", "1e3", "Infinity", "7 days"]) {
      await expect(
        run(scenarioCommand, ["create", "--org", org.id, "--name", "x", "--payment-lag", lag]),
        lag,
      ).rejects.toThrow(/--payment-lag must be a number/);
    }
    // Every option is stored: --receivable-timing was once dropped without a word.
    const [due] = await run(scenarioCommand, [
      "create",
      "--org",
      org.id,
      "--name",
      "Due dates",
      "--receivable-timing",
      "due",
    ]);
    expect(due).toMatchObject({ assumptions: { receivableTiming: "due" } });
    const [history] = await run(scenarioCommand, [
      "edit",
      String(due?.id),
      "--org",
      org.id,
      "--receivable-timing",
      "history",
    ]);
    expect(history).toMatchObject({ assumptions: { receivableTiming: "history" } });
  });

  it("recomputes on demand, explains a week, and prints a backtest table", async () => {
    const { org } = await orgWithCash("500");
    await run(cashCommand, [
      "item",
      "add",
      "--org",
      org.id,
      "--in",
      "--amount",
      "40",
      "--date",
      "2026-03-04",
    ]);
    const [r] = await run(forecastCommand, ["recompute", "--org", org.id]);
    expect((r?.snapshots as { kind: string }[] | undefined)?.map((s) => s.kind)).toEqual([
      "BASE",
      "BEST",
      "WORST",
    ]);
    const [e] = await run(forecastCommand, ["explain", "--org", org.id, "--week", "1"]);
    expect(e).toMatchObject({
      week: { inflow: "40", closing: "540" },
      lines: [{ source: "MANUAL", amount: "40", direction: "in" }],
    });
    const [b] = await run(backtestCommand, ["--org", org.id, "--weeks", "4"]);
    expect(b).toMatchObject({
      orgId: org.id,
      horizons: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13],
    });
    expect((b?.origins as string[] | undefined)?.length).toBe(4);
    expect(b?.scores).toMatchObject({ BASE: expect.any(Array), flat: expect.any(Array) });
  });
});
