import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { App } from "../../src/app.ts";
import type { Db } from "../../src/db/client.ts";
import type { Scope } from "../../src/domain/scopes.ts";
import { createHttpServer } from "../../src/http/server.ts";
import { runBrief } from "../../src/services/brief/run-brief.ts";
import { seedDemo } from "../../src/services/demo/seed-demo.ts";
import { setSensitive } from "../../src/services/sensitivity/set-sensitive.ts";
import { createTestKey, rowsOf } from "../helpers/api.ts";
import { type MeteredTestApp, meteredApp } from "../helpers/metering.ts";

/** The instant of the demo world: Sunday 22 November 2026, noon in Sydney. */
export const WORLD_NOW = new Date("2026-11-22T01:00:00Z");

/** A running HTTP server over a test app (port 0), for clients in other processes. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Serves `app` on a free loopback port, as `npm start` serves it. */
export async function serve(app: App): Promise<Served> {
  const server = createHttpServer(app.fetch, { hostname: "127.0.0.1" });
  // Idle keep-alive sockets stay open until close(): with the 5 s default, a server timer and a
  // client reusing the socket can cross while the embedded database blocks the event loop, and
  // the client's next request dies with ECONNRESET (seen on a loaded machine).
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface DemoWorld {
  t: MeteredTestApp;
  db: Db;
  orgId: string;
  ownerUserId: string;
  /** A contact flagged sensitive, with invoices, bills or payments: its name and ledger id. */
  canary: { name: string; externalId: string };
  /** An organisation key with `scopes` (default every scope but READ_SENSITIVE). */
  key(scopes?: readonly Scope[], opts?: { sensitive?: boolean }): Promise<string>;
}

let world: Promise<DemoWorld> | undefined;

/**
 * The demo organisation (`npm start`'s, smaller: 400 sales invoices), seeded once per test
 * process and shared by the package suites, served by the real application with real metering
 * (a 14-day Wallet trial: 250 credits for its owner). Its largest customer is flagged sensitive
 * (the canary), and today's daily brief is written, so every tool has something to answer.
 */
export function demoWorld(): Promise<DemoWorld> {
  world ??= (async () => {
    const t = await meteredApp({ now: WORLD_NOW });
    const seeded = await seedDemo(t.db, {
      seed: "packages",
      now: WORLD_NOW,
      invoices: 400,
      folder: mkdtempSync(join(tmpdir(), "packages-demo-")),
    });
    const orgId = seeded.orgId;
    // The customer with the most invoices, whose name no other contact contains.
    const candidates = rowsOf<{ name: string; external_id: string }>(
      await t.db.execute(sql`
        select c.name, c.external_id
          from contacts c
          join cash_items i on i.org_id = c.org_id and i.contact_external_id = c.external_id
         where c.org_id = ${orgId} and i.source = 'LEDGER_INVOICE'
         group by c.name, c.external_id
         order by count(*) desc, c.external_id
         limit 10`),
    );
    const names = rowsOf<{ name: string }>(
      await t.db.execute(sql`select name from contacts where org_id = ${orgId}`),
    ).map((r) => r.name);
    const canaryRow = candidates.find(
      (c) => names.filter((n) => n.includes(c.name) || c.name.includes(n)).length === 1,
    );
    if (!canaryRow) throw new Error("no demo customer with a unique name");
    await setSensitive(t.db, {
      orgId,
      target: { contact: canaryRow.external_id },
      sensitive: true,
    });
    await runBrief(t.db, { orgId, asOfDate: WORLD_NOW.toISOString().slice(0, 10), now: WORLD_NOW });
    return {
      t,
      db: t.db,
      orgId,
      ownerUserId: seeded.ownerUserId,
      canary: { name: canaryRow.name, externalId: canaryRow.external_id },
      key: async (scopes, opts) =>
        (
          await createTestKey(
            t.db,
            {
              kind: "ORG",
              orgId,
              label: "packages",
              scopes: [...(scopes ?? ALL_SCOPES)],
              sensitive: opts?.sensitive ?? false,
            },
            WORLD_NOW,
          )
        ).key,
    };
  })();
  return world;
}

/** Every capability scope (READ_SENSITIVE is the separate `sensitive` option). */
export const ALL_SCOPES: readonly Scope[] = [
  "READ_BANK",
  "READ_FORECAST",
  "READ_PIPELINE",
  "READ_INVOICES",
  "READ_CONTACTS",
  "READ_SUMMARY",
  "READ_ACCOUNTS",
  "READ_PURCHASE_ORDERS",
];

/** The audit rows of a key (by its full secret's prefix). */
export async function auditCount(w: DemoWorld, key: string): Promise<number> {
  await w.t.flushAudit(); // the app's batched writer commits what it holds
  const prefix = key.split("_").at(-2) ?? "";
  const rows = rowsOf<{ n: number | string }>(
    await w.db.execute(sql`
      select count(*) as n from audit_events e join api_keys k on k.id = e.key_id
       where k.prefix = ${prefix}`),
  );
  return Number(rows[0]?.n ?? 0);
}
