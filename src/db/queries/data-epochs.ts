import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../client.ts";
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
