import { eq } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { organisations } from "../db/schema/index.ts";
import type { OrgRef, ServiceContext } from "./context.ts";
import { NotFoundError } from "./errors.ts";

/** The organisation as the services see it, read by id. */
export async function loadOrgRef(db: Db, orgId: string): Promise<OrgRef> {
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
  return org;
}

/**
 * A context for the service's own work (jobs, CLI, the signed-in screens): the `system` actor
 * passes every scope check and sees sensitive names. Never hand its results to an API key
 * unmasked. `now` comes from the caller's clock (so CASHRUNWAY_NOW reaches every caller).
 * @throws NotFoundError no such organisation.
 */
export async function systemContext(db: Db, orgId: string, now: Date): Promise<ServiceContext> {
  return { db, now, org: await loadOrgRef(db, orgId), actor: { type: "system" }, scopes: [] };
}
