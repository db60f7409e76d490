import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, or, sql } from "drizzle-orm";
import {
  authorizeUrl,
  deleteTenantConnection,
  exchangeCode,
  type LedgerTenant,
  type LedgerTokens,
  listTenants,
  pkcePair,
  revokeToken,
} from "../../connector/xero/oauth.ts";
import {
  ledgerAuthorizations,
  ledgerConnections,
  ledgerCredentials,
  ledgerWatermarks,
  syncRuns,
} from "../../db/schema/index.ts";
import { newId } from "../../domain/ids.ts";
import { shownRun } from "./abandoned-runs.ts";
import { type LedgerDeps, redirectUriOf } from "./deps.ts";
import { ConnectionTokens } from "./tokens.ts";

/*
 * Connecting an organisation to its ledger (Xero): the authorization-code flow with PKCE and a
 * single-use `state` bound to the session that started it, the tenant choice, the link (one
 * tenant per organisation, one organisation per tenant), disconnect, and the connection's state.
 */

/** How long an authorization may take, from the Connect button to the callback. */
const AUTHORIZATION_TTL_MS = 15 * 60_000;

/** A connect step refused; `code` names why, the message says it to the user. */
export class LedgerConnectError extends Error {
  constructor(
    readonly code:
      | "invalid_state"
      | "consent_denied"
      | "tenant_taken"
      | "other_tenant_linked"
      | "unknown_tenant"
      | "no_tenant"
      | "not_connected",
    message: string,
  ) {
    super(message);
    this.name = "LedgerConnectError";
  }
}

const digest = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * Starts an authorization: returns the ledger's consent URL. `sessionDigest` is the SHA-256 of
 * the web session's token (or `cli` for a headless connect): only that session can finish it.
 */
export async function startAuthorization(
  deps: LedgerDeps,
  input: { orgId: string; userId: string | null; sessionDigest: string },
): Promise<{ authorizationUrl: string; stateDigest: string }> {
  const state = randomBytes(24).toString("base64url");
  const stateDigest = digest(state);
  const { verifier, challenge } = pkcePair();
  const redirectUri = redirectUriOf(deps);
  const url = authorizeUrl(deps.settings, { redirectUri, state, codeChallenge: challenge });
  const now = deps.now();
  await deps.db.insert(ledgerAuthorizations).values({
    stateDigest,
    orgId: input.orgId,
    userId: input.userId,
    sessionDigest: input.sessionDigest,
    codeVerifierSealed: deps.sealer.seal(verifier, stateDigest),
    redirectUri,
    status: "pending",
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_TTL_MS),
  });
  return { authorizationUrl: url, stateDigest };
}

export type AuthorizationOutcome =
  | { status: "linked"; orgId: string; tenantId: string; tenantName: string }
  | { status: "choose_tenant"; orgId: string; tenants: { tenantId: string; tenantName: string }[] };

/**
 * The OAuth callback: consumes the `state` (single use; it must belong to `sessionDigest`, or
 * to a headless connect when `sessionDigest` is null), exchanges the code, lists the tenants and
 * links the only one, or keeps the tokens sealed until the user picks one.
 */
export async function completeAuthorization(
  deps: LedgerDeps,
  input: { state: string; code?: string; error?: string; sessionDigest: string | null },
): Promise<AuthorizationOutcome> {
  const stateDigest = digest(input.state);
  const now = deps.now();
  // Single use: only one callback moves it out of `pending`.
  const [auth] = await deps.db
    .update(ledgerAuthorizations)
    .set({ status: "failed", error: "in progress" })
    .where(
      and(
        eq(ledgerAuthorizations.stateDigest, stateDigest),
        eq(ledgerAuthorizations.status, "pending"),
        sql`${ledgerAuthorizations.expiresAt} > ${now}`,
        // A headless connect's state is known only to the operator who printed the URL; a web
        // one only completes in the session that started it.
        or(
          eq(ledgerAuthorizations.sessionDigest, "cli"),
          eq(ledgerAuthorizations.sessionDigest, input.sessionDigest ?? "cli"),
        ),
      ),
    )
    .returning();
  if (!auth) {
    throw new LedgerConnectError(
      "invalid_state",
      "This authorization is unknown, expired, already used, or was started in another session.",
    );
  }
  const fail = async (code: LedgerConnectError["code"], message: string): Promise<never> => {
    await deps.db
      .update(ledgerAuthorizations)
      .set({ status: "failed", error: message })
      .where(eq(ledgerAuthorizations.stateDigest, stateDigest));
    throw new LedgerConnectError(code, message);
  };
  if (input.error || !input.code) {
    return fail("consent_denied", `The ledger did not grant access (${input.error ?? "no code"}).`);
  }
  let tokens: LedgerTokens;
  let tenants: LedgerTenant[];
  try {
    tokens = await exchangeCode(
      deps.settings,
      {
        code: input.code,
        redirectUri: auth.redirectUri,
        codeVerifier: deps.sealer.open(auth.codeVerifierSealed, stateDigest),
        now,
      },
      deps.fetch,
    );
    tenants = await listTenants(deps.settings, tokens.accessToken, deps.fetch);
  } catch (e) {
    return fail("consent_denied", `The ledger refused the authorization: ${(e as Error).message}`);
  }
  if (tenants.length === 0) return fail("no_tenant", "The authorization reaches no organisation.");
  const only = tenants.length === 1 ? tenants[0] : undefined;
  if (only) {
    try {
      await linkTenant(deps, { orgId: auth.orgId, tokens, tenant: only });
    } catch (e) {
      if (e instanceof LedgerConnectError) return fail(e.code, e.message);
      throw e;
    }
    await deps.db
      .update(ledgerAuthorizations)
      .set({ status: "linked", error: null, tenants: [pick(only)] })
      .where(eq(ledgerAuthorizations.stateDigest, stateDigest));
    return { status: "linked", orgId: auth.orgId, ...pick(only) };
  }
  await deps.db
    .update(ledgerAuthorizations)
    .set({
      status: "choose_tenant",
      error: null,
      tokensSealed: deps.sealer.seal(JSON.stringify(tokens), stateDigest),
      tenants,
    })
    .where(eq(ledgerAuthorizations.stateDigest, stateDigest));
  return { status: "choose_tenant", orgId: auth.orgId, tenants: tenants.map(pick) };
}

const pick = (t: LedgerTenant) => ({ tenantId: t.tenantId, tenantName: t.tenantName });

/**
 * Links the tenant the user picked after a callback that reached several. `stateDigest`
 * identifies the authorization; it must belong to `sessionDigest` (or be headless).
 */
export async function chooseTenant(
  deps: LedgerDeps,
  input: { stateDigest: string; sessionDigest: string | null; orgId: string; tenantId: string },
): Promise<AuthorizationOutcome & { status: "linked" }> {
  // Taken FOR UPDATE and cleared in one transaction: a choice is made once.
  const auth = await deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(ledgerAuthorizations)
      .where(
        and(
          eq(ledgerAuthorizations.stateDigest, input.stateDigest),
          eq(ledgerAuthorizations.orgId, input.orgId),
          eq(ledgerAuthorizations.status, "choose_tenant"),
          eq(ledgerAuthorizations.sessionDigest, input.sessionDigest ?? "cli"),
        ),
      )
      .for("update");
    if (row) {
      await tx
        .update(ledgerAuthorizations)
        .set({ status: "linked", tokensSealed: null })
        .where(eq(ledgerAuthorizations.stateDigest, row.stateDigest));
    }
    return row;
  });
  if (!auth?.tokensSealed) {
    throw new LedgerConnectError("invalid_state", "There is no tenant choice pending here.");
  }
  const tenants = (auth.tenants ?? []) as LedgerTenant[];
  const tenant = tenants.find((t) => t.tenantId === input.tenantId);
  const raw = JSON.parse(deps.sealer.open(auth.tokensSealed, auth.stateDigest)) as LedgerTokens & {
    expiresAt: string;
  };
  if (!tenant) {
    throw new LedgerConnectError("unknown_tenant", "That organisation is not part of this grant.");
  }
  await linkTenant(deps, {
    orgId: auth.orgId,
    tokens: { ...raw, expiresAt: new Date(raw.expiresAt) },
    tenant,
  });
  return { status: "linked", orgId: auth.orgId, ...pick(tenant) };
}

/**
 * The tenant choice waiting for this session in `orgId` (a callback that reached several ledger
 * organisations), newest first; null when there is none or it expired.
 */
export async function pendingTenantChoice(
  deps: LedgerDeps,
  input: { orgId: string; sessionDigest: string },
): Promise<{ stateDigest: string; tenants: { tenantId: string; tenantName: string }[] } | null> {
  const [row] = await deps.db
    .select({
      stateDigest: ledgerAuthorizations.stateDigest,
      tenants: ledgerAuthorizations.tenants,
    })
    .from(ledgerAuthorizations)
    .where(
      and(
        eq(ledgerAuthorizations.orgId, input.orgId),
        eq(ledgerAuthorizations.sessionDigest, input.sessionDigest),
        eq(ledgerAuthorizations.status, "choose_tenant"),
        sql`${ledgerAuthorizations.expiresAt} > ${deps.now()}`,
      ),
    )
    .orderBy(desc(ledgerAuthorizations.createdAt))
    .limit(1);
  if (!row) return null;
  return {
    stateDigest: row.stateDigest,
    tenants: ((row.tenants ?? []) as LedgerTenant[]).map(pick),
  };
}

/** The state of a headless authorization, for `ledger connect` waiting on the callback. */
export async function authorizationStatus(
  deps: LedgerDeps,
  stateDigest: string,
): Promise<{ status: string; error: string | null; tenants: LedgerTenant[] } | null> {
  const [row] = await deps.db
    .select({
      status: ledgerAuthorizations.status,
      error: ledgerAuthorizations.error,
      tenants: ledgerAuthorizations.tenants,
    })
    .from(ledgerAuthorizations)
    .where(eq(ledgerAuthorizations.stateDigest, stateDigest));
  if (!row) return null;
  return { status: row.status, error: row.error, tenants: (row.tenants ?? []) as LedgerTenant[] };
}

/**
 * Links `tenant` to the organisation with fresh tokens: creates or repairs (reconnect) the
 * connection. A tenant already linked to another organisation is refused; so is a second tenant
 * on an organisation that has one (disconnect first), since their documents would mix.
 */
export async function linkTenant(
  deps: LedgerDeps,
  input: { orgId: string; tokens: LedgerTokens; tenant: LedgerTenant },
): Promise<{ connectionId: string }> {
  const { orgId, tokens, tenant } = input;
  return deps.db.transaction(async (tx) => {
    await tx.execute(
      sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger-link:${tenant.tenantId}`}))`,
    );
    const [elsewhere] = await tx
      .select({ orgId: ledgerCredentials.orgId })
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.tenantId, tenant.tenantId));
    if (elsewhere && elsewhere.orgId !== orgId) {
      throw new LedgerConnectError(
        "tenant_taken",
        `The ledger organisation "${tenant.tenantName}" is already connected to another Cash Runway organisation; disconnect it there first.`,
      );
    }
    const [own] = await tx
      .select({ tenantId: ledgerCredentials.tenantId })
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.orgId, orgId));
    if (own && own.tenantId !== tenant.tenantId) {
      throw new LedgerConnectError(
        "other_tenant_linked",
        "This organisation is connected to another ledger organisation; disconnect it first.",
      );
    }
    await tx
      .insert(ledgerConnections)
      .values({
        id: newId("con"),
        orgId,
        provider: "xero",
        sourceRef: tenant.tenantId,
        status: "active",
      })
      .onConflictDoUpdate({
        target: ledgerConnections.orgId,
        set: { provider: "xero", sourceRef: tenant.tenantId, status: "active", lastError: null },
      });
    const [connection] = await tx
      .select({ id: ledgerConnections.id })
      .from(ledgerConnections)
      .where(eq(ledgerConnections.orgId, orgId));
    if (!connection) throw new Error("ledger connection missing after upsert");
    const bound = connection.id;
    const sealed = {
      tenantName: tenant.tenantName,
      ledgerConnectionId: tenant.id,
      accessTokenSealed: deps.sealer.seal(tokens.accessToken, bound),
      accessExpiresAt: tokens.expiresAt,
      refreshTokenSealed: deps.sealer.seal(tokens.refreshToken, bound),
      scope: tokens.scope,
      refreshedAt: deps.now(),
      nextAttemptAt: null,
      retryReason: null,
      consecutiveFailures: 0,
    };
    await tx
      .insert(ledgerCredentials)
      .values({ connectionId: bound, orgId, tenantId: tenant.tenantId, ...sealed })
      .onConflictDoUpdate({ target: ledgerCredentials.connectionId, set: sealed });
    return { connectionId: bound };
  });
}

/** The organisation's live connection: its row ids and tenant, or null. */
export async function liveConnectionOf(
  deps: LedgerDeps,
  orgId: string,
): Promise<{ connectionId: string; tenantId: string; tenantName: string | null } | null> {
  const [row] = await deps.db
    .select({
      connectionId: ledgerCredentials.connectionId,
      tenantId: ledgerCredentials.tenantId,
      tenantName: ledgerCredentials.tenantName,
    })
    .from(ledgerCredentials)
    .where(eq(ledgerCredentials.orgId, orgId));
  return row ?? null;
}

/**
 * Disconnect: ends the grant at the ledger (DELETE /connections/{id}, then revokes the refresh
 * token), forgets the tokens and watermarks, and marks the connection `disconnected`. The
 * projected data stays, read-only. A ledger that cannot be reached, or already forgot the grant,
 * does not stop the local disconnect.
 */
export async function disconnectLedger(
  deps: LedgerDeps,
  input: { orgId: string },
): Promise<{ revoked: boolean }> {
  const live = await liveConnectionOf(deps, input.orgId);
  if (!live) throw new LedgerConnectError("not_connected", "No ledger is connected.");
  let revoked = false;
  try {
    const [row] = await deps.db
      .select({
        refresh: ledgerCredentials.refreshTokenSealed,
        ledgerConnectionId: ledgerCredentials.ledgerConnectionId,
      })
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.connectionId, live.connectionId));
    const tokens = new ConnectionTokens(deps, input.orgId, live.connectionId);
    if (row?.ledgerConnectionId) {
      await deleteTenantConnection(
        deps.settings,
        await tokens.accessToken(),
        row.ledgerConnectionId,
        deps.fetch,
      );
    }
    const [after] = await deps.db
      .select({ refresh: ledgerCredentials.refreshTokenSealed })
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.connectionId, live.connectionId));
    if (after) {
      await revokeToken(
        deps.settings,
        deps.sealer.open(after.refresh, live.connectionId),
        deps.fetch,
      );
    }
    revoked = true;
  } catch {
    // Consent already withdrawn at the ledger, or the ledger is down: nothing more to end there.
  }
  await deps.db.transaction(async (tx) => {
    await tx.delete(ledgerCredentials).where(eq(ledgerCredentials.connectionId, live.connectionId));
    await tx.delete(ledgerWatermarks).where(eq(ledgerWatermarks.orgId, input.orgId));
    await tx
      .update(ledgerConnections)
      .set({ status: "disconnected", lastError: null })
      .where(eq(ledgerConnections.orgId, input.orgId));
  });
  return { revoked };
}

export type LedgerConnectionStateName = "none" | "healthy" | "retrying" | "reconnect_required";

export interface LedgerConnectionView {
  state: LedgerConnectionStateName;
  provider: string | null;
  tenantId: string | null;
  tenantName: string | null;
  lastSuccessfulSyncAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
  runs: {
    id: string;
    startedAt: string;
    finishedAt: string | null;
    outcome: string;
    ledgerCalls: number | null;
    counts: unknown;
    error: string | null;
  }[];
}

const STATE_OF: Record<string, LedgerConnectionStateName> = {
  active: "healthy",
  service_issue: "retrying",
  reconnect_required: "reconnect_required",
  disconnected: "none",
};

/** The organisation's ledger connection as `ledger status` and the settings screen show it. */
export async function ledgerConnectionView(
  deps: Pick<LedgerDeps, "db">,
  orgId: string,
  runs = 5,
  now: Date = new Date(),
): Promise<LedgerConnectionView> {
  const [row] = await deps.db
    .select({
      provider: ledgerConnections.provider,
      status: ledgerConnections.status,
      lastSuccessfulSyncAt: ledgerConnections.lastSuccessfulSyncAt,
      lastError: ledgerConnections.lastError,
      tenantId: ledgerCredentials.tenantId,
      tenantName: ledgerCredentials.tenantName,
      nextAttemptAt: ledgerCredentials.nextAttemptAt,
    })
    .from(ledgerConnections)
    .leftJoin(ledgerCredentials, eq(ledgerCredentials.connectionId, ledgerConnections.id))
    .where(eq(ledgerConnections.orgId, orgId));
  const recent = await deps.db
    .select()
    .from(syncRuns)
    .where(eq(syncRuns.orgId, orgId))
    .orderBy(desc(syncRuns.startedAt))
    .limit(runs);
  return {
    state: row ? (STATE_OF[row.status] ?? "none") : "none",
    provider: row?.provider ?? null,
    tenantId: row?.tenantId ?? null,
    tenantName: row?.tenantName ?? null,
    lastSuccessfulSyncAt: row?.lastSuccessfulSyncAt?.toISOString() ?? null,
    nextAttemptAt: row?.nextAttemptAt?.toISOString() ?? null,
    lastError: row?.lastError ?? null,
    // A run left `running` by a dead process reads as failed (interrupted).
    runs: recent
      .map((run) => shownRun(run, now))
      .map((r) => ({
        id: r.id,
        startedAt: r.startedAt.toISOString(),
        finishedAt: r.finishedAt?.toISOString() ?? null,
        outcome: r.outcome,
        ledgerCalls: r.ledgerCalls ?? null,
        counts: r.counts,
        error: r.error,
      })),
  };
}
