import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { organisations } from "../../db/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";

/** A system (operator) context for an organisation: every scope, names unmasked. */
export async function orgContext(db: Db, orgId: string, now: Date): Promise<ServiceContext> {
  const [org] = await db
    .select({
      id: organisations.id,
      name: organisations.name,
      baseCurrency: organisations.baseCurrency,
      timezone: organisations.timezone,
      financialYearEndMonth: organisations.financialYearEndMonth,
      financialYearEndDay: organisations.financialYearEndDay,
      billingAccountId: organisations.billingAccountId,
    })
    .from(organisations)
    .where(eq(organisations.id, orgId));
  if (!org) throw new NotFoundError("organisation");
  return { db, now, org, actor: { type: "system" }, scopes: [] };
}
