import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { organisations } from "../../db/schema/index.ts";
import { canonical, money } from "../../domain/money.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";

/** The largest threshold accepted (base currency): well inside NUMERIC, far above any balance. */
const MAX_THRESHOLD = money("1e15");

/** The owner's runway threshold in base currency (`0` until set). */
export async function getRunwayThreshold(db: DbOrTx, orgId: string): Promise<string> {
  const [row] = await db
    .select({ threshold: organisations.runwayThreshold })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!row) throw new NotFoundError("organisation");
  return canonical(row.threshold ?? "0");
}

/**
 * Sets the runway threshold: a decimal amount in base currency, 0 or more, at most 2 decimals
 * (the dashboard counts weeks until the BASE forecast's closing cash goes below it).
 * @throws InvalidParameterError not such an amount.
 */
export async function setRunwayThreshold(
  db: DbOrTx,
  input: { orgId: string; threshold: string },
): Promise<string> {
  const text = input.threshold.trim().replace(/,/g, "");
  if (!/^\d{1,16}(\.\d{1,2})?$/.test(text) || money(text).greaterThan(MAX_THRESHOLD)) {
    throw new InvalidParameterError(
      "threshold",
      "the threshold must be an amount of 0 or more with at most 2 decimals, e.g. 20000",
    );
  }
  const value = canonical(text);
  const updated = await db
    .update(organisations)
    .set({ runwayThreshold: value })
    .where(eq(organisations.id, input.orgId))
    .returning({ id: organisations.id });
  if (updated.length === 0) throw new NotFoundError("organisation");
  return value;
}
