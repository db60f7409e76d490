import { join } from "node:path";
import { BUSINESSES, DEFAULT_BUSINESS, isBusiness } from "../../demo/business.ts";
import { DEFAULT_DEMO_INVOICES, MAX_DEMO_INVOICES } from "../../demo/generate.ts";
import { seedDemo } from "../../services/demo/seed-demo.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";
import { DEFAULT_DEMO_SEED } from "./demo.ts";

/**
 * The export folder of a demo: under DATA_DIR, so it outlives the command (the organisation's
 * ledger connection points at it and a later re-import reads it), named by seed and size. The
 * seed is reduced to file-name-safe characters; the folder is regenerated on every run.
 */
export function demoFolder(dataDir: string, seed: string, invoices: number): string {
  const safe = seed.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 60);
  return join(dataDir, `demo-ledger-${safe}-${invoices}`);
}

/** Where an agent reaches the server this configuration starts. */
function baseUrl(host: string, port: number): string {
  const h =
    host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

export async function runDemo(args: ParsedArgs, ctx: CliContext): Promise<void> {
  args.allowOnly("seed", "invoices", "name", "business");
  const business = args.string("business") ?? DEFAULT_BUSINESS;
  if (!isBusiness(business))
    throw new UsageError(`--business must be one of ${BUSINESSES.join(", ")}`);
  if (args.positionals.length > 0) throw new UsageError("demo takes no positional arguments");
  const seed = args.string("seed") ?? DEFAULT_DEMO_SEED;
  if (seed.trim() === "") throw new UsageError("--seed must not be empty");
  const invoices = args.int("invoices", 1, MAX_DEMO_INVOICES) ?? DEFAULT_DEMO_INVOICES;
  const name = args.string("name");
  if (name !== undefined && name.trim() === "") throw new UsageError("--name must not be empty");
  const folder = demoFolder(
    ctx.config.DATA_DIR,
    business === DEFAULT_BUSINESS ? seed : `${seed}-${business}`,
    invoices,
  );
  const now = ctx.clock.now();

  const database = await ctx.openDatabase();
  try {
    const demo = await seedDemo(database.db, {
      seed,
      now,
      invoices,
      folder,
      business,
      ...(name === undefined ? {} : { name }),
    });
    const s = demo.summary;
    const url = `${baseUrl(ctx.config.HOST, ctx.config.PORT)}/api/agent/bank-accounts`;
    const curl = `curl -H "Authorization: Bearer ${demo.key}" ${url}`;
    const c = s.counts;
    ctx.print(
      {
        orgId: demo.orgId,
        name: s.organisation.name,
        ownerUserId: demo.ownerUserId,
        key: demo.key,
        prefix: demo.prefix,
        syncRunId: demo.syncRunId,
        seed: s.seed,
        folder: s.folder,
        dateRange: s.dateRange,
        counts: c,
        bankAccounts: s.bankSummary.accounts,
        sensitiveAccounts: s.sensitiveAccounts,
        curl,
      },
      [
        `Created demo organisation ${demo.orgId} ("${s.organisation.name}"), on a 14-day Wallet trial`,
        `  ledger:    ${c.invoices} invoices, ${c.bills} bills, ${c.creditNotes} credit notes, ${c.purchaseOrders} purchase orders, ${c.payments} payments, ${c.bankTransactions} bank transactions, ${c.contacts} contacts`,
        `  history:   ${s.dateRange.from} to ${s.dateRange.to} (seed "${s.seed}"; export folder ${s.folder})`,
        `  banks:     ${s.bankSummary.accounts.map((a) => `${a.name} ${a.closingBalance}`).join(", ")}`,
        `  sensitive: ${s.sensitiveAccounts.map((a) => `${a.name} (${a.code})`).join(", ")}`,
        `API key (shown once; store it now): ${demo.key}`,
        `  prefix: ${demo.prefix}   scopes: every scope except READ_SENSITIVE`,
        "Try it (with the server running):",
        `  ${curl}`,
      ],
    );
  } finally {
    await database.close();
  }
}
