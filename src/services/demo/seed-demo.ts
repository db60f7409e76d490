import type { Db } from "../../db/client.ts";
import type { Business } from "../../demo/business.ts";
import {
  DEMO_ORG_NAME,
  DEMO_TIMEZONE,
  type DemoSummary,
  generateDemoLedger,
} from "../../demo/generate.ts";
import { ALL_BUT_SENSITIVE } from "../../domain/scopes.ts";
import { createApiKey } from "../keys/create-api-key.ts";
import { createOrganisation } from "../orgs/create-organisation.ts";
import { setSensitive } from "../sensitivity/set-sensitive.ts";
import { importLedgerFolder } from "../sync/import-ledger.ts";

/** Options of seedDemo. */
export interface SeedDemoOptions {
  seed: string | number;
  /** The clock: the demo's history ends today and the trial starts now. */
  now: Date;
  /** Sales invoices to generate (1..200,000); default 1,100. */
  invoices?: number;
  /** Where the ledger export folder is written (created if missing; its files are replaced). */
  folder: string;
  /** Organisation name (default "Demo Pty Ltd"). */
  name?: string;
  /** Told as seeding moves on, for a progress display (`npm start`'s first start). */
  onProgress?: (progress: SeedProgress) => void;
  /** The kind of business (src/demo/business.ts); default the usual demo. */
  business?: Business;
}

/**
 * Where a seeding is: generating the ledger export (`done` of `total` parts), importing it (which
 * computes the forecasts, baselines and summaries), creating the key, finished.
 */
export type SeedProgress =
  | { step: "generate"; done: number; total: number; part: string }
  | { step: "import" }
  | { step: "key" }
  | { step: "done" };

/** A seeded demo organisation, with its key (shown once) and the generation summary. */
export interface SeededDemo {
  orgId: string;
  ownerUserId: string;
  /** The organisation key's secret: the only copy. Show it once; never log or store it. */
  key: string;
  prefix: string;
  syncRunId: string;
  summary: DemoSummary;
}

/** Label of the key a demo organisation starts with. */
export const DEMO_KEY_LABEL = "Demo key (all scopes but READ_SENSITIVE)";

/**
 * Seeds a demo organisation end to end: generates the ledger export folder (deterministic for
 * seed and clock), creates the organisation on a 14-day Wallet trial, imports the folder,
 * flags the wages account and the director's loan account sensitive, and creates an
 * organisation key with every scope except READ_SENSITIVE, so the demo shows redaction at work.
 *
 * The folder is generated before the organisation exists, so a generation failure leaves no
 * trace in the database; an import failure leaves the organisation with its failed sync run
 * recorded (LedgerImportError), as any failed import does.
 */
export async function seedDemo(db: Db, opts: SeedDemoOptions): Promise<SeededDemo> {
  const name = opts.name ?? DEMO_ORG_NAME;
  const summary = await generateDemoLedger({
    seed: opts.seed,
    now: opts.now,
    folder: opts.folder,
    name,
    ...(opts.invoices === undefined ? {} : { invoices: opts.invoices }),
    onProgress: (done, total, part) => opts.onProgress?.({ step: "generate", done, total, part }),
    ...(opts.business === undefined ? {} : { business: opts.business }),
  });
  opts.onProgress?.({ step: "import" });
  const org = await createOrganisation(
    db,
    { name, baseCurrency: "AUD", timezone: DEMO_TIMEZONE },
    opts.now,
  );
  const run = await importLedgerFolder(db, {
    orgId: org.id,
    folder: summary.folder,
    now: opts.now,
  });
  for (const account of summary.sensitiveAccounts) {
    await setSensitive(db, {
      orgId: org.id,
      target: { account: account.accountId },
      sensitive: true,
    });
  }
  opts.onProgress?.({ step: "key" });
  const created = await createApiKey(
    db,
    { kind: "ORG", orgId: org.id, label: DEMO_KEY_LABEL, scopes: ALL_BUT_SENSITIVE },
    opts.now,
  );
  opts.onProgress?.({ step: "done" });
  return {
    orgId: org.id,
    ownerUserId: org.ownerUserId,
    key: created.key,
    prefix: created.prefix,
    syncRunId: run.syncRunId,
    summary,
  };
}
