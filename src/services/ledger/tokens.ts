import { and, eq } from "drizzle-orm";
import type { AccessTokenProvider } from "../../connector/xero/client.ts";
import { LedgerOAuthError, refreshTokens } from "../../connector/xero/oauth.ts";
import { LedgerReconnectRequiredError } from "../../connector/xero/policy.ts";
import type { DbOrTx } from "../../db/client.ts";
import { ledgerConnections, ledgerCredentials } from "../../db/schema/index.ts";
import type { LedgerDeps } from "./deps.ts";

/** An access token this close to expiry is refreshed before use. */
const REFRESH_MARGIN_MS = 2 * 60_000;

export const RECONNECT_MESSAGE =
  "The ledger refused our authorization (consent revoked or refresh token expired); reconnect it.";

/** Puts a connection in `reconnect_required` (the ledgerAlert then says so). */
export async function markReconnectRequired(
  db: DbOrTx,
  orgId: string,
  connectionId: string,
): Promise<void> {
  await db
    .update(ledgerConnections)
    .set({ status: "reconnect_required", lastError: RECONNECT_MESSAGE })
    .where(and(eq(ledgerConnections.orgId, orgId), eq(ledgerConnections.id, connectionId)));
}

/**
 * A connection's access tokens, refreshed before they expire. Refresh tokens are single-use, so
 * the refresh runs with the credentials row locked (`FOR UPDATE`): another instance that needs
 * a token meanwhile waits and then finds the fresh one, and the rotated refresh token is
 * committed before the new access token is handed out. `invalid_grant` moves the connection to
 * `reconnect_required`.
 */
export class ConnectionTokens implements AccessTokenProvider {
  private cached: { token: string; expiresAt: Date } | undefined;

  constructor(
    private readonly deps: LedgerDeps,
    private readonly orgId: string,
    private readonly connectionId: string,
  ) {}

  async accessToken(options?: { force?: boolean }): Promise<string> {
    const now = this.deps.now();
    const cached = this.cached;
    if (
      !options?.force &&
      cached &&
      cached.expiresAt.getTime() - now.getTime() > REFRESH_MARGIN_MS
    ) {
      return cached.token;
    }
    // A forced refresh means the token handed out last was refused: any other one will do.
    const refused = options?.force ? cached?.token : undefined;
    const { sealer, settings } = this.deps;
    const bound = this.connectionId;
    try {
      this.cached = await this.deps.db.transaction(async (tx) => {
        const [row] = await tx
          .select({
            access: ledgerCredentials.accessTokenSealed,
            refresh: ledgerCredentials.refreshTokenSealed,
            expiresAt: ledgerCredentials.accessExpiresAt,
          })
          .from(ledgerCredentials)
          .where(
            and(
              eq(ledgerCredentials.orgId, this.orgId),
              eq(ledgerCredentials.connectionId, this.connectionId),
            ),
          )
          .for("update");
        if (!row)
          throw new LedgerReconnectRequiredError("the ledger connection has no credentials");
        const current = sealer.open(row.access, bound);
        const at = this.deps.now();
        if (row.expiresAt.getTime() - at.getTime() > REFRESH_MARGIN_MS && current !== refused) {
          return { token: current, expiresAt: row.expiresAt };
        }
        const fresh = await refreshTokens(
          settings,
          { refreshToken: sealer.open(row.refresh, bound), now: at },
          this.deps.fetch,
        );
        await tx
          .update(ledgerCredentials)
          .set({
            accessTokenSealed: sealer.seal(fresh.accessToken, bound),
            refreshTokenSealed: sealer.seal(fresh.refreshToken, bound),
            accessExpiresAt: fresh.expiresAt,
            refreshedAt: at,
            ...(fresh.scope ? { scope: fresh.scope } : {}),
          })
          .where(eq(ledgerCredentials.connectionId, this.connectionId));
        return { token: fresh.accessToken, expiresAt: fresh.expiresAt };
      });
      return this.cached.token;
    } catch (e) {
      if (e instanceof LedgerOAuthError && e.code === "invalid_grant") {
        await markReconnectRequired(this.deps.db, this.orgId, this.connectionId);
        throw new LedgerReconnectRequiredError();
      }
      throw e;
    }
  }
}
