import { eq, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "../client.ts";
import { orgDataEpochs } from "../schema/index.ts";
import { UNNAMED_STATEMENT } from "./prepared.ts";

function epochQuery(db: DbOrTx) {
  return db
    .select({ epoch: orgDataEpochs.epoch })
    .from(orgDataEpochs)
    .where(eq(orgDataEpochs.orgId, sql.placeholder("orgId")))
    .prepare(UNNAMED_STATEMENT);
}

/** Built once per client: lists read the epoch on every request. */
const epochQueries = new WeakMap<DbOrTx, ReturnType<typeof epochQuery>>();

/** The organisation's data epoch (see `orgDataEpochs`); 0 before its first listed write. */
export async function readOrgDataEpoch(db: DbOrTx, orgId: string): Promise<number> {
  let query = epochQueries.get(db);
  if (!query) {
    query = epochQuery(db);
    epochQueries.set(db, query);
  }
  const [row] = await query.execute({ orgId });
  return row?.epoch ?? 0;
}

/**
 * Bumps the organisation's data epoch now, taking its row lock for the rest of the transaction.
 * A writer of listed rows outside an import calls it first, so that it queues behind an import in
 * progress before it locks any row the import may also write (instead of deadlocking with it).
 */
export async function bumpOrgDataEpoch(tx: DbOrTx, orgId: string): Promise<void> {
  await tx.execute(sql`
    INSERT INTO org_data_epochs AS e (org_id, epoch) VALUES (${orgId}, 1)
    ON CONFLICT (org_id) DO UPDATE SET epoch = e.epoch + 1`);
}

/**
 * Runs `write` in a transaction that bumps the organisation's data epoch first. Every writer of
 * rows the epoch guards (the lists' counts, the forecast's kept books) outside an import goes
 * through here: an import in progress holds the epoch row until it commits, so the writer waits
 * there before it locks a row the import may still write; the other order deadlocks with the
 * import (drizzle/0014_org_data_epoch_triggers.sql, drizzle/0029).
 */
export function afterDataEpoch<T>(
  db: DbOrTx,
  orgId: string,
  write: (tx: Tx) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    await bumpOrgDataEpoch(tx, orgId);
    return write(tx);
  });
}
