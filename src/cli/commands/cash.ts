import { getCashPosition } from "../../services/cash-position/get-cash-position.ts";
import { setCashOverride } from "../../services/cash-position/set-cash-override.ts";
import { NotFoundError } from "../../services/errors.ts";
import {
  addManualItem,
  listManualItems,
  removeManualItem,
} from "../../services/forecast/manual-items.ts";
import { recomputeForecasts } from "../../services/forecast/recompute-forecasts.ts";
import { requireOrganisation } from "../../services/orgs/require-organisation.ts";
import { systemContext } from "../../services/system-context.ts";
import { type ParsedArgs, UsageError } from "../args.ts";
import { type CliContext, defineCommand } from "../command.ts";

/**
 * `cashrunway cash`: the operator's levers on the cash position and the forecast.
 *
 *   cash override --org ID --amount A        starting cash is A (source `manual`)
 *   cash override --org ID --clear           back to the ledger's reconciled total
 *   cash show --org ID                       the cash position, as READ_SENSITIVE sees it
 *   cash item add --org ID (--in | --out) --amount A --date YYYY-MM-DD
 *                 [--description T] [--account CODE] [--probability P]   (P: a pipeline item)
 *   cash item list --org ID
 *   cash item remove --org ID ITEM_ID
 *
 * Every change recomputes the organisation's forecasts, so the API serves it at once.
 */
export const cashCommand = defineCommand({
  name: "cash",
  summary: "the cash position: override starting cash, add manual and pipeline items",
  flags: {
    org: { value: "ID", description: "the organisation" },
    amount: {
      value: "A",
      description: "an amount in the organisation's currency, as a decimal (12500.00)",
    },
    clear: { description: "override: go back to the ledger's reconciled total" },
    in: { description: "item add: money coming in" },
    out: { description: "item add: money going out" },
    date: { value: "YYYY-MM-DD", description: "item add: the day the money moves" },
    description: { value: "T", description: "item add: what the item is, shown in the forecast" },
    account: { value: "CODE", description: "item add: the ledger account the item belongs to" },
    probability: {
      value: "P",
      description: "item add: a pipeline item, weighted by this probability (0 to 1)",
    },
  },
  subcommands: [
    {
      name: "override",
      summary: "set the starting cash by hand, or clear the override",
      usage: [
        "cash override --org ID (--amount A | --clear)   set or clear the starting-cash override",
      ],
      flags: ["org", "amount", "clear"],
      examples: [
        "cash override --org org_tpxprxz2g0095ksv8z2r --amount 48250.00",
        "cash override --org org_tpxprxz2g0095ksv8z2r --clear",
      ],
    },
    {
      name: "show",
      summary: "the cash position, account by account (as a READ_SENSITIVE key sees it)",
      usage: ["cash show --org ID                              the cash position"],
      flags: ["org"],
      examples: ["cash show --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "item add",
      summary: "a manual item (or, with --probability, a pipeline item) in the forecast",
      usage: [
        "cash item add --org ID (--in|--out) --amount A --date D [--description T] [--account CODE] [--probability P]",
      ],
      flags: ["org", "in", "out", "amount", "date", "description", "account", "probability"],
      examples: [
        'cash item add --org org_tpxprxz2g0095ksv8z2r --out --amount 9000 --date 2026-03-31 --description "VAT"',
        'cash item add --org org_tpxprxz2g0095ksv8z2r --in --amount 20000 --date 2026-04-15 --probability 0.6 --description "Acme renewal"',
      ],
    },
    {
      name: "item list",
      summary: "the organisation's manual and pipeline items",
      usage: ["cash item list --org ID"],
      flags: ["org"],
      examples: ["cash item list --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "item remove",
      summary: "removes a manual or pipeline item",
      usage: ["cash item remove --org ID ITEM_ID"],
      flags: ["org"],
      examples: ["cash item remove --org org_tpxprxz2g0095ksv8z2r ci_3m8q2x7k9v4b6n1c5d0f"],
    },
  ],
  async run(args, ctx) {
    const sub = args.positional(0, "a subcommand: override, show or item");
    if (sub === "override") return override(args, ctx);
    if (sub === "show") return show(args, ctx);
    if (sub === "item") return item(args, ctx);
    throw new UsageError(`unknown subcommand "cash ${sub}" (override, show, item)`);
  },
});

async function withDb<T>(
  ctx: CliContext,
  orgId: string,
  f: (db: Awaited<ReturnType<CliContext["openDatabase"]>>["db"]) => Promise<T>,
): Promise<T> {
  const database = await ctx.openDatabase();
  try {
    return await f(database.db);
  } catch (e) {
    if (e instanceof NotFoundError && e.message === "organisation not found") {
      throw new UsageError(`no organisation "${orgId}"`);
    }
    throw e;
  } finally {
    await database.close();
  }
}

async function override(args: ParsedArgs, ctx: CliContext) {
  args.allowOnly("org", "amount", "clear");
  const orgId = args.requireString("org");
  const clear = args.bool("clear");
  const amount = args.string("amount");
  if (clear === (amount !== undefined))
    throw new UsageError("give exactly one of --amount A or --clear");
  await withDb(ctx, orgId, async (db) => {
    const now = ctx.clock.now();
    const set = await setCashOverride(db, { orgId, amount: clear ? null : (amount ?? ""), now });
    await recomputeForecasts(db, { orgId, now });
    const position = await getCashPosition({ ctx: await systemContext(db, orgId, now) });
    ctx.print(
      {
        override: set ? { amount: set.amount, setAt: set.setAt.toISOString() } : null,
        cashPosition: position,
      },
      set
        ? `Starting cash overridden: ${set.amount} ${position.currency} (source manual; ledger total ${position.ledgerReconciledTotal})`
        : `Override cleared: starting cash ${position.effectiveStartingCash} ${position.currency} (source ${position.source})`,
    );
  });
}

async function show(args: ParsedArgs, ctx: CliContext) {
  args.allowOnly("org");
  const orgId = args.requireString("org");
  await withDb(ctx, orgId, async (db) => {
    const p = await getCashPosition({ ctx: await systemContext(db, orgId, ctx.clock.now()) });
    ctx.print({ ...p }, [
      `Cash position of ${orgId} on ${p.asOfDate}: ${p.effectiveStartingCash} ${p.currency} (source ${p.source})`,
      `  ledger reconciled total ${p.ledgerReconciledTotal}`,
      ...p.accounts.map(
        (a) =>
          `  ${a.included ? "+" : " "} ${a.name.padEnd(30)} ${a.currency} ${a.reconciledBalance.padStart(14)} ${a.balanceSource}`,
      ),
    ]);
  });
}

async function item(args: ParsedArgs, ctx: CliContext) {
  const action = args.positional(1, "add, list or remove");
  const orgId = args.requireString("org");
  if (action === "add") {
    args.allowOnly("org", "in", "out", "amount", "date", "description", "account", "probability");
    const inflow = args.bool("in");
    if (inflow === args.bool("out")) throw new UsageError("give exactly one of --in or --out");
    const probability = args.string("probability");
    await withDb(ctx, orgId, async (db) => {
      const now = ctx.clock.now();
      const created = await addManualItem(db, {
        orgId,
        kind: probability === undefined ? "MANUAL" : "PIPELINE",
        direction: inflow ? "in" : "out",
        amount: args.requireString("amount"),
        date: args.requireString("date"),
        now,
        ...(args.string("description") !== undefined
          ? { description: args.string("description") as string }
          : {}),
        ...(args.string("account") !== undefined
          ? { accountCode: args.string("account") as string }
          : {}),
        ...(probability !== undefined ? { probability } : {}),
      });
      await recomputeForecasts(db, { orgId, now });
      ctx.print(
        { ...created },
        `Added ${created.kind.toLowerCase()} item ${created.id}: ${created.amount} on ${created.date}`,
      );
    });
    return;
  }
  if (action === "list") {
    args.allowOnly("org");
    await withDb(ctx, orgId, async (db) => {
      await requireOrganisation(db, orgId);
      const items = await listManualItems(db, orgId);
      ctx.print(
        { items },
        items.length === 0
          ? "No manual or pipeline items."
          : items.map(
              (i) =>
                `${i.id}  ${i.kind.padEnd(8)} ${i.date}  ${i.amount.padStart(12)} ${i.currency}` +
                `${i.probability !== null ? ` × ${i.probability}` : ""}  ${i.description ?? ""}`,
            ),
      );
    });
    return;
  }
  if (action === "remove") {
    args.allowOnly("org");
    const itemId = args.positional(2, "ITEM_ID");
    await withDb(ctx, orgId, async (db) => {
      const now = ctx.clock.now();
      await removeManualItem(db, { orgId, itemId });
      await recomputeForecasts(db, { orgId, now });
      ctx.print({ removed: itemId }, `Removed ${itemId}`);
    });
    return;
  }
  throw new UsageError(`unknown subcommand "cash item ${action}" (add, list, remove)`);
}
