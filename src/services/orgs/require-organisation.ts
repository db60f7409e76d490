import { eq } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { organisations } from "../../db/schema/index.ts";
import { NotFoundError } from "../errors.ts";

/**
 * Throws `NotFoundError("organisation")` unless the organisation exists: for operator listings
 * that would otherwise answer an empty list for a mistyped id.
 */
export async function requireOrganisation(db: DbOrTx, orgId: string): Promise<void> {
  const [row] = await db
    .select({ id: organisations.id })
    .from(organisations)
    .where(eq(organisations.id, orgId))
    .limit(1);
  if (!row) throw new NotFoundError("organisation");
}
