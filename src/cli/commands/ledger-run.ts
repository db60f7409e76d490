import {
  LEDGER_STATES,
  type LedgerState,
  setLedgerState,
} from "../../services/alerts/set-ledger-state.ts";
import { ServiceError } from "../../services/errors.ts";
import {
  authorizationStatus,
  chooseTenant,
  disconnectLedger,
  LedgerConnectError,
  ledgerConnectionView,
  startAuthorization,
} from "../../services/ledger/connect.ts";
import { createLedgerDeps, type LedgerDeps } from "../../services/ledger/deps.ts";
import { type LedgerSyncResult, syncLedger } from "../../services/ledger/sync.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

const SUBCOMMANDS = ["connect", "status", "sync", "disconnect", "set-state"] as const;

/** How long `ledger connect` waits for the user to approve at the ledger. */
const CONNECT_TIMEOUT_MS = 10 * 60_000;

async function connect(
  ctx: CliContext,
  deps: LedgerDeps,
  input: { orgId: string; tenantId: string | undefined; timeoutMs: number },
): Promise<void> {
  const { authorizationUrl, stateDigest } = await startAuthorization(deps, {
    orgId: input.orgId,
    userId: null,
    sessionDigest: "cli",
  });
  ctx.print({ authorizationUrl }, [
    "Open this address in a browser and approve access:",
    `  ${authorizationUrl}`,
    `Waiting for the ledger to call back (the service must be running at ${deps.publicBaseUrl})…`,
  ]);
  const deadline = Date.now() + input.timeoutMs;
  for (;;) {
    const status = await authorizationStatus(deps, stateDigest);
    // `failed` with "in progress" is the callback at work.
    if (status?.status === "linked") break;
    if (status?.status === "failed" && status.error !== "in progress") {
      throw new ServiceError("invalid_parameter", status.error ?? "the authorization failed");
    }
    if (status?.status === "choose_tenant") {
      const choices = status.tenants.map((t) => `${t.tenantId} (${t.tenantName})`);
      if (!input.tenantId) {
        throw new UsageError(
          `the authorization reaches several ledger organisations; run again with --tenant, one of: ${choices.join(", ")}`,
        );
      }
      await chooseTenant(deps, {
        stateDigest,
        sessionDigest: null,
        orgId: input.orgId,
        tenantId: input.tenantId,
      });
      break;
    }
    if (Date.now() > deadline) {
      throw new ServiceError(
        "service_unavailable",
        "no approval arrived before the timeout; run `ledger connect` again",
      );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  report(ctx, input.orgId, await syncLedger(deps, { orgId: input.orgId }));
}

function report(ctx: CliContext, orgId: string, result: LedgerSyncResult): void {
  if (result.outcome === "succeeded") {
    const records = Object.entries(result.counts)
      .map(([k, v]) => `${k} ${v.read}`)
      .join(", ");
    ctx.print(
      { orgId, ...result },
      `Synced ${orgId} (${result.mode}): ${records}; ${result.ledgerCalls} ledger calls.`,
    );
    return;
  }
  ctx.print(
    { orgId, ...result },
    `Sync of ${orgId} failed (${result.state}${result.nextAttemptAt ? `, next try ${result.nextAttemptAt}` : ""}): ${result.error}`,
  );
  throw new ServiceError("service_unavailable", `the sync failed: ${result.state}`);
}

function statusLines(
  orgId: string,
  view: Awaited<ReturnType<typeof ledgerConnectionView>>,
): string[] {
  const lines = [
    `Ledger of ${orgId}: ${view.state}${view.tenantName ? ` (${view.tenantName}, ${view.tenantId})` : ""}`,
    `Last successful sync: ${view.lastSuccessfulSyncAt ?? "never"}`,
  ];
  if (view.nextAttemptAt) lines.push(`Next attempt: ${view.nextAttemptAt}`);
  if (view.lastError) lines.push(`Last error: ${view.lastError}`);
  for (const r of view.runs) {
    lines.push(
      `  ${r.startedAt} ${r.outcome}${r.ledgerCalls !== null ? `, ${r.ledgerCalls} calls` : ""}${r.error ? `: ${r.error}` : ""}`,
    );
  }
  return lines;
}

export async function runLedger(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, `subcommand (${SUBCOMMANDS.join(", ")})`);
  if (!(SUBCOMMANDS as readonly string[]).includes(sub)) {
    throw new UsageError(
      `unknown subcommand "ledger ${sub}" (expected: ${SUBCOMMANDS.map((s) => `ledger ${s}`).join(", ")})`,
    );
  }
  const orgId = args.requireString("org");
  if (sub === "set-state") {
    args.allowOnly("org");
    const state = args.positional(1, `state (${LEDGER_STATES.join(", ")})`);
    if (!(LEDGER_STATES as readonly string[]).includes(state)) {
      throw new UsageError(`state must be one of ${LEDGER_STATES.join(", ")}, got "${state}"`);
    }
    if (args.positionals.length > 2)
      throw new UsageError(`unexpected argument "${args.positionals[2]}"`);
    const database = await ctx.openDatabase();
    try {
      const r = await setLedgerState(database.db, { orgId, state: state as LedgerState });
      ctx.print(
        r,
        `Ledger connection of ${r.orgId}: ${r.state}${r.status ? ` (status ${r.status}, provider ${r.provider})` : " (no connection)"}`,
      );
    } finally {
      await database.close();
    }
    return;
  }
  if (args.positionals.length > 1)
    throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
  const database = await ctx.openDatabase();
  const deps = createLedgerDeps({
    db: database.db,
    settings: ctx.config,
    publicBaseUrl: `http://${ctx.config.HOST}:${ctx.config.PORT}`,
    now: () => ctx.clock.now(),
  });
  try {
    if (sub === "status") {
      const view = await ledgerConnectionView(deps, orgId, 5, ctx.clock.now());
      ctx.print({ orgId, ...view }, statusLines(orgId, view));
    } else if (sub === "sync") {
      report(ctx, orgId, await syncLedger(deps, { orgId, full: args.bool("full") }));
    } else if (sub === "disconnect") {
      const r = await disconnectLedger(deps, { orgId });
      ctx.print(
        { orgId, state: "none", revokedAtLedger: r.revoked },
        `Ledger disconnected from ${orgId}${r.revoked ? "" : " (the ledger could not be reached to revoke; it was forgotten here)"}; the synced data stays, read-only.`,
      );
    } else {
      const seconds = args.int("timeout", 1, 24 * 3600);
      await connect(ctx, deps, {
        orgId,
        tenantId: args.string("tenant"),
        timeoutMs: seconds ? seconds * 1000 : CONNECT_TIMEOUT_MS,
      });
    }
  } catch (e) {
    if (e instanceof LedgerConnectError) throw new ServiceError("invalid_parameter", e.message);
    throw e;
  } finally {
    await database.close();
  }
}
