import { and, asc, eq, ilike, or, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { ledgerAccounts } from "../../db/schema/index.ts";

/** Escapes LIKE wildcards so a search for `50%` finds that text literally. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/**
 * The organisation's ledger accounts matching `q` (a case-insensitive fragment of the name or the
 * code; every account without one), as the settings pages list them.
 */
export function accountSearch(orgId: string, q: string | undefined): SQL | undefined {
  const text = q?.trim();
  return and(
    eq(ledgerAccounts.orgId, orgId),
    text
      ? or(
          ilike(ledgerAccounts.name, likePattern(text)),
          ilike(ledgerAccounts.code, likePattern(text)),
        )
      : undefined,
  );
}

/** The pages' account order: by code (accounts without one last), then name, then id. */
export const ACCOUNT_ORDER = [
  sql`${ledgerAccounts.code} collate "C" nulls last`,
  sql`${ledgerAccounts.name} collate "C"`,
  asc(ledgerAccounts.id),
];

/** How many accounts `accountSearch` matches. */
export async function countAccounts(db: DbOrTx, where: SQL | undefined): Promise<number> {
  const [count] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(ledgerAccounts)
    .where(where);
  return count?.n ?? 0;
}
