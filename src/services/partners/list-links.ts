import { asc, eq, inArray, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { organisations, partnerLinks, partners } from "../../db/schema/index.ts";

/** A partner's linked client organisations, by name. */
export function listPartnerClients(
  db: DbOrTx,
  partnerId: string,
): Promise<{ orgId: string; name: string; linkedAt: Date }[]> {
  return db
    .select({ orgId: organisations.id, name: organisations.name, linkedAt: partnerLinks.createdAt })
    .from(partnerLinks)
    .innerJoin(organisations, eq(organisations.id, partnerLinks.orgId))
    .where(eq(partnerLinks.partnerId, partnerId))
    .orderBy(sql`${organisations.name} collate "C"`, asc(organisations.id));
}

/** The partners linked to an organisation, by name. */
export function listPartnersLinkedTo(
  db: DbOrTx,
  orgId: string,
): Promise<{ partnerId: string; name: string; linkedAt: Date }[]> {
  return db
    .select({ partnerId: partners.id, name: partners.name, linkedAt: partnerLinks.createdAt })
    .from(partnerLinks)
    .innerJoin(partners, eq(partners.id, partnerLinks.partnerId))
    .where(eq(partnerLinks.orgId, orgId))
    .orderBy(sql`${partners.name} collate "C"`, asc(partners.id));
}

/** Names of organisations by id (for a pinned key's reach), whatever their link state. */
export async function orgNamesById(
  db: DbOrTx,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: organisations.id, name: organisations.name })
    .from(organisations)
    .where(inArray(organisations.id, [...ids]));
  return new Map(rows.map((r) => [r.id, r.name]));
}
