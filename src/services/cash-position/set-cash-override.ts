import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { cashOverrides, organisations } from "../../db/schema/index.ts";
import { MAX_AMOUNT } from "../../domain/forecasting/cents.ts";
import { canonical, isWholeCentsWithin } from "../../domain/money.ts";
import { quoted } from "../../domain/quoted.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";

/**
 * Sets (`amount`) or clears (`null`) an organisation's starting-cash override. While set, the
 * cash position's source is `manual` and the forecast opens with this amount. The caller
 * recomputes the forecast.
 * @returns the override now in force, or null.
 */
export async function setCashOverride(
  db: Db,
  input: { orgId: string; amount: string | null; now: Date },
): Promise<{ amount: string; setAt: Date } | null> {
  const [org] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.id, input.orgId));
  if (!org) throw new NotFoundError("organisation");
  if (input.amount === null) {
    await db.delete(cashOverrides).where(eq(cashOverrides.orgId, input.orgId));
    return null;
  }
  const amount = input.amount.trim();
  if (!isWholeCentsWithin(amount, MAX_AMOUNT)) {
    throw new InvalidParameterError(
      "amount",
      `amount must be a decimal of whole cents such as 12500.50, within ±${MAX_AMOUNT}, got ${quoted(amount)}`,
    );
  }
  const value = { orgId: input.orgId, amount: canonical(amount), setAt: input.now };
  await db
    .insert(cashOverrides)
    .values(value)
    .onConflictDoUpdate({
      target: cashOverrides.orgId,
      set: { amount: value.amount, setAt: value.setAt },
    });
  return { amount: value.amount, setAt: value.setAt };
}
