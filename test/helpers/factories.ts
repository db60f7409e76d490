import type { Db } from "../../src/db/client.ts";
import { ledgerConnections, type Plan } from "../../src/db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";

let counter = 0;

/**
 * A fresh organisation (with owner, billing account and seat) for one test.
 *
 * Like a newly created organisation it has no ledger connection, so every agent response for it
 * carries the `no_connection` ledgerAlert. With `imported`, it is in the state its first
 * successful file import leaves (an active `export_folder` connection, synced at `now`), as an
 * organisation holding the data a test inserts would be: no ledgerAlert, so a test can compare
 * whole bodies.
 */
export async function createTestOrg(
  db: Db,
  opts: {
    name?: string;
    plan?: Plan;
    timezone?: string;
    baseCurrency?: string;
    now?: Date;
    imported?: boolean;
  } = {},
) {
  counter += 1;
  const now = opts.now ?? new Date();
  const org = await createOrganisation(
    db,
    {
      name: opts.name ?? `Test Org ${counter} ${Math.random().toString(36).slice(2, 8)}`,
      plan: opts.plan,
      timezone: opts.timezone,
      baseCurrency: opts.baseCurrency,
    },
    now,
  );
  if (opts.imported) {
    await db.insert(ledgerConnections).values({
      id: newId("con"),
      orgId: org.id,
      provider: "export_folder",
      sourceRef: "test-fixtures",
      status: "active",
      lastSuccessfulSyncAt: now,
    });
  }
  return org;
}
