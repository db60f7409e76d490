import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import type { RunningFakeLedger } from "../../src/connector/xero/fake/server.ts";
import type { Db } from "../../src/db/client.ts";
import { generateDemoLedger } from "../../src/demo/generate.ts";
import {
  type AuthorizationOutcome,
  completeAuthorization,
  startAuthorization,
} from "../../src/services/ledger/connect.ts";
import { createLedgerDeps, type LedgerDeps } from "../../src/services/ledger/deps.ts";

/** Shortened call windows: limits exercised in test time. */
export const TEST_POLICY = {
  windowMs: 1000,
  backoffInitialMs: 20,
  backoffMaxMs: 200,
  breakerHalfOpenMs: 300,
  timeoutMs: 5000,
};

/** Ledger services pointed at a running fake. */
export function depsFor(
  db: Db,
  fake: RunningFakeLedger,
  extra: Record<string, string> = {},
): LedgerDeps {
  const config = loadConfig({ ...fake.env, ...extra });
  return createLedgerDeps({
    db,
    settings: config,
    publicBaseUrl: "http://127.0.0.1:9",
    policy: TEST_POLICY,
  });
}

/**
 * The whole consent dance against the fake, as a user's browser would do it: open the
 * authorization URL, press "Allow access", land on the callback (here: call it directly).
 */
export async function connectThroughFake(
  deps: LedgerDeps,
  orgId: string,
  sessionDigest = "cli",
): Promise<AuthorizationOutcome> {
  const { authorizationUrl } = await startAuthorization(deps, {
    orgId,
    userId: null,
    sessionDigest,
  });
  const page = await (await fetch(authorizationUrl)).text();
  const href = /id="allow" href="([^"]+)"/.exec(page)?.[1]?.replaceAll("&#38;", "&");
  if (!href) throw new Error("no allow link on the fake's consent page");
  const back = new URL(href);
  return completeAuthorization(deps, {
    state: back.searchParams.get("state") ?? "",
    code: back.searchParams.get("code") ?? undefined,
    error: back.searchParams.get("error") ?? undefined,
    sessionDigest: sessionDigest === "cli" ? null : sessionDigest,
  });
}

/** A demo ledger export folder (`invoices` sales invoices), for seeding the fake. */
export async function demoFolder(invoices = 40, seed = "ledger"): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), "cr-ledger-"));
  await generateDemoLedger({ seed, now: new Date("2026-06-30T00:00:00Z"), invoices, folder });
  return folder;
}
