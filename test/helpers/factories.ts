import type { Db } from "../../src/db/client.ts";
import type { Plan } from "../../src/db/schema/index.ts";
import { createOrganisation } from "../../src/services/orgs/create-organisation.ts";

let counter = 0;

/** A fresh organisation (with owner, billing account and seat) for one test. */
export async function createTestOrg(
  db: Db,
  opts: { name?: string; plan?: Plan; timezone?: string; baseCurrency?: string; now?: Date } = {},
) {
  counter += 1;
  return createOrganisation(
    db,
    {
      name: opts.name ?? `Test Org ${counter} ${Math.random().toString(36).slice(2, 8)}`,
      plan: opts.plan,
      timezone: opts.timezone,
      baseCurrency: opts.baseCurrency,
    },
    opts.now ?? new Date(),
  );
}
