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
import type { CliContext } from "../command.ts";

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

export async function runCash(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, "a subcommand: override, show or item");
  if (sub === "override") return override(args, ctx);
  if (sub === "show") return show(args, ctx);
  if (sub === "item") return item(args, ctx);
  throw new UsageError(`unknown subcommand "cash ${sub}" (override, show, item)`);
}
