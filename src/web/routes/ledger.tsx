import { createHmac, timingSafeEqual } from "node:crypto";
import { hostname } from "node:os";
import type { Hono } from "hono";
import { randomToken } from "../../domain/ids.ts";
import type { AppDeps, AppEnv } from "../../http/env.ts";
import { completeAuthorization, LedgerConnectError } from "../../services/ledger/connect.ts";
import { createLedgerDeps, type LedgerDeps } from "../../services/ledger/deps.ts";
import { orgsForTenants } from "../../services/ledger/orgs-for-tenants.ts";
import { type LedgerSyncResult, syncLedger } from "../../services/ledger/sync.ts";
import { queueLedgerSync, runQueuedSyncs } from "../../services/ledger/sync-queue.ts";
import { digestToken } from "../../services/web-auth/tokens.ts";
import { readSessionCookie } from "../request.ts";

/*
 * The ledger's two ways into the service: the OAuth callback (LEDGER_REDIRECT_URI, by default
 * `/ledger/callback` here) and the webhook `POST /webhooks/ledger`, which Xero signs with
 * HMAC-SHA256 of the raw body under the webhook key (`x-xero-signature`, base64).
 */

/** Names this process in job_runs.claimed_by for the webhook syncs it runs. */
const WEBHOOK_INSTANCE = `web:${hostname()}:${process.pid}:${randomToken(6)}`;

/** Syncs running in this process, by organisation: a webhook burst starts one, not many. */
const running = new Map<string, Promise<LedgerSyncResult>>();

/** Starts an incremental sync of `orgId` unless one is running here (the import's lock serialises instances). */
export function requestSync(deps: LedgerDeps, orgId: string): Promise<LedgerSyncResult> {
  let run = running.get(orgId);
  if (!run) {
    run = syncLedger(deps, { orgId }).finally(() => running.delete(orgId));
    running.set(orgId, run);
  }
  return run;
}

/** Whether this process is syncing `orgId` now (the settings page shows progress). */
export function isSyncing(orgId: string): boolean {
  return running.has(orgId);
}

/** The ledger services as the app's routes use them (callback, webhook, settings page). */
export function ledgerDepsFor(appDeps: AppDeps): LedgerDeps {
  return createLedgerDeps({
    db: appDeps.database.db,
    settings: appDeps.config,
    publicBaseUrl: `http://${appDeps.config.HOST}:${appDeps.config.PORT}`,
    now: () => appDeps.clock.now(),
  });
}

/** True when `signature` is the base64 HMAC-SHA256 of `body` under `key` (constant time). */
export function validWebhookSignature(
  body: string,
  signature: string | undefined,
  key: string,
): boolean {
  if (!signature) return false;
  const expected = createHmac("sha256", key).update(body, "utf8").digest();
  let given: Buffer;
  try {
    given = Buffer.from(signature, "base64");
  } catch {
    return false;
  }
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function page(title: string, lines: string[], back = false): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  const link = back ? `<p><a href="/settings/ledger">Back to the ledger connection</a></p>` : "";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body><h1>${esc(title)}</h1>${lines.map((l) => `<p>${esc(l)}</p>`).join("")}${link}</body></html>`;
}

export function registerLedgerRoutes(app: Hono<AppEnv>, appDeps: AppDeps): void {
  const deps = ledgerDepsFor(appDeps);

  app.get("/ledger/callback", async (c) => {
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer"); // the code must not leak to another site
    const q = c.req.query();
    if (!q.state)
      return c.html(page("Ledger connection", ["This address expects the ledger's answer."]), 400);
    const cookie = readSessionCookie(c);
    try {
      const outcome = await completeAuthorization(deps, {
        state: q.state,
        code: q.code,
        error: q.error,
        sessionDigest: cookie ? digestToken(cookie) : null,
      });
      if (outcome.status === "linked") {
        // The first sync runs in the background; `ledger connect` runs it itself and waits.
        void requestSync(deps, outcome.orgId).catch((err: unknown) =>
          c.get("logger").error({ err }, "ledger sync after connect failed"),
        );
        // Started from the settings screen: back to it, where the sync's progress shows.
        if (cookie) return c.redirect("/settings/ledger?notice=connected", 303);
        return c.html(
          page("Ledger connected", [
            `Linked to ${outcome.tenantName}. The first sync has started; you can close this window.`,
          ]),
        );
      }
      // The settings page lists the pending choice of this session.
      if (cookie) return c.redirect("/settings/ledger", 303);
      return c.html(
        page("Choose the ledger organisation", [
          "The authorization reaches several organisations:",
          ...outcome.tenants.map((t) => `${t.tenantName} (${t.tenantId})`),
          "Pick one with `cashrunway ledger connect --tenant TENANT_ID`, or in the settings screen.",
        ]),
      );
    } catch (e) {
      if (e instanceof LedgerConnectError) {
        return c.html(page("Ledger not connected", [e.message], Boolean(cookie)), 400);
      }
      throw e;
    }
  });

  app.post("/webhooks/ledger", async (c) => {
    const key = deps.settings.LEDGER_WEBHOOK_KEY;
    const body = await c.req.text();
    if (!key || !validWebhookSignature(body, c.req.header("x-xero-signature"), key)) {
      return c.body(null, 401);
    }
    let tenantIds: string[] = [];
    try {
      const parsed = JSON.parse(body) as { events?: { tenantId?: unknown }[] };
      tenantIds = [
        ...new Set(
          (parsed.events ?? []).flatMap((e) =>
            typeof e.tenantId === "string" ? [e.tenantId] : [],
          ),
        ),
      ];
    } catch {
      return c.json({ error: "invalid_parameter", message: "the body is not JSON" }, 400);
    }
    const orgIds = await orgsForTenants(deps.db, tenantIds);
    if (orgIds.length > 0) {
      // Queued durably before the answer: a 200 always leads to a sync, here at once or, if
      // this process stops first, by any instance's next scheduler tick (sync-queue.ts).
      for (const orgId of orgIds) await queueLedgerSync(deps.db, orgId, deps.now());
      // Xero wants an answer within 5 seconds: the syncs run after it.
      void runQueuedSyncs(deps.db, {
        instance: WEBHOOK_INSTANCE,
        now: deps.now,
        orgIds,
        run: (orgId) => requestSync(deps, orgId),
      }).catch((err: unknown) =>
        c.get("logger").error({ err, orgIds }, "ledger sync after webhook failed"),
      );
    }
    return c.body(null, 200);
  });
}
