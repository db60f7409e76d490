import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { cashItems, organisations } from "../../db/schema/index.ts";
import { MAX_AMOUNT } from "../../domain/forecasting/cents.ts";
import { isCalendarDate } from "../../domain/forecasting/dates.ts";
import { newId } from "../../domain/ids.ts";
import { canonical, isDecimalString, isWholeCentsWithin, money } from "../../domain/money.ts";
import { quoted } from "../../domain/quoted.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";

/** A manual or pipeline cash item, as the operator sees it. */
export interface ManualItem {
  id: string;
  kind: "MANUAL" | "PIPELINE";
  /** Signed: positive = inflow, negative = outflow. */
  amount: string;
  currency: string;
  date: string;
  description: string | null;
  /** Ledger account code it is categorised under. */
  accountCode: string | null;
  /** Pipeline items: the chance it converts. */
  probability: string | null;
}

/**
 * Adds a manual item (certain) or a pipeline item (weighted by `probability`) to the forecast:
 * stored as a cash item with source MANUAL or PIPELINE and status FORECAST, in the organisation's
 * base currency; imports never touch them. The caller recomputes the forecast.
 */
export async function addManualItem(
  db: Db,
  input: {
    orgId: string;
    kind: "MANUAL" | "PIPELINE";
    direction: "in" | "out";
    amount: string;
    date: string;
    description?: string;
    accountCode?: string;
    probability?: string;
    now: Date;
  },
): Promise<ManualItem> {
  const [org] = await db
    .select({ id: organisations.id, baseCurrency: organisations.baseCurrency })
    .from(organisations)
    .where(eq(organisations.id, input.orgId));
  if (!org) throw new NotFoundError("organisation");
  const amount = input.amount.trim();
  if (!isWholeCentsWithin(amount, MAX_AMOUNT) || money(amount).lte(0)) {
    throw new InvalidParameterError(
      "amount",
      `amount must be a positive decimal of whole cents up to ${MAX_AMOUNT}, got ${quoted(amount)}`,
    );
  }
  if (!isCalendarDate(input.date)) {
    throw new InvalidParameterError("date", `date must be YYYY-MM-DD, got "${input.date}"`);
  }
  let probability: string | null = null;
  if (input.kind === "PIPELINE") {
    const p = (input.probability ?? "").trim();
    if (!isDecimalString(p) || money(p).lt(0) || money(p).gt(1)) {
      throw new InvalidParameterError(
        "probability",
        `a pipeline item needs a probability from 0 to 1, got "${p}"`,
      );
    }
    probability = canonical(p);
  }
  const signed = input.direction === "in" ? canonical(amount) : canonical(money(amount).neg());
  const row = {
    id: newId("ci"),
    orgId: org.id,
    source: input.kind,
    status: "FORECAST" as const,
    currency: org.baseCurrency,
    amount: signed,
    expectedDate: input.date,
    reference: input.description?.trim() || null,
    category: input.accountCode?.trim() || null,
    probability,
    lastSyncedAt: input.now,
  };
  await db.insert(cashItems).values(row);
  return {
    id: row.id,
    kind: input.kind,
    amount: signed,
    currency: row.currency,
    date: row.expectedDate,
    description: row.reference,
    accountCode: row.category,
    probability,
  };
}

/** The organisation's manual and pipeline items, by date then id. */
export async function listManualItems(db: Db, orgId: string): Promise<ManualItem[]> {
  const rows = await db
    .select()
    .from(cashItems)
    .where(and(eq(cashItems.orgId, orgId), inArray(cashItems.source, ["MANUAL", "PIPELINE"])))
    .orderBy(asc(cashItems.expectedDate), asc(cashItems.id));
  return rows.map((r) => ({
    id: r.id,
    kind: r.source as "MANUAL" | "PIPELINE",
    amount: canonical(r.amount),
    currency: r.currency,
    date: r.expectedDate,
    description: r.reference,
    accountCode: r.category,
    probability: r.probability === null ? null : canonical(r.probability),
  }));
}

/** Removes a manual or pipeline item (never a ledger document). */
export async function removeManualItem(
  db: Db,
  input: { orgId: string; itemId: string },
): Promise<void> {
  const removed = await db
    .delete(cashItems)
    .where(
      and(
        eq(cashItems.orgId, input.orgId),
        eq(cashItems.id, input.itemId),
        inArray(cashItems.source, ["MANUAL", "PIPELINE"]),
      ),
    )
    .returning({ id: cashItems.id });
  if (removed.length === 0) throw new NotFoundError("manual item");
}
