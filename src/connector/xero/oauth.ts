import { createHash, randomBytes } from "node:crypto";
import type { LedgerSettings } from "./config.ts";

/*
 * The ledger's identity endpoints (OAuth 2.0 authorization code with PKCE, Xero's rules in
 * mapping.md §2.3): the authorize URL, the code exchange and refresh (one POST each, client
 * credentials as HTTP Basic, as Xero expects), revocation, and the tenant list. Tokens pass
 * through here and are never put in an error message.
 */

export type LedgerOAuthSettings = Pick<
  LedgerSettings,
  | "LEDGER_AUTHORIZE_URL"
  | "LEDGER_TOKEN_URL"
  | "LEDGER_REVOKE_URL"
  | "LEDGER_API_URL"
  | "LEDGER_CLIENT_ID"
  | "LEDGER_CLIENT_SECRET"
  | "LEDGER_SCOPES"
>;

export interface LedgerTokens {
  accessToken: string;
  refreshToken: string;
  /** When the access token expires. */
  expiresAt: Date;
  scope: string | null;
}

export interface LedgerTenant {
  /** The grant's connection id (DELETE /connections/{id} ends it). */
  id: string;
  tenantId: string;
  tenantName: string;
  tenantType: string;
}

/** The identity service refused: `code` is the OAuth error (`invalid_grant`, …) or `http_<status>`. */
export class LedgerOAuthError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
  ) {
    super(`the ledger's identity service refused: ${code}`);
    this.name = "LedgerOAuthError";
  }
}

export class LedgerNotConfiguredError extends Error {
  constructor() {
    super("LEDGER_CLIENT_ID and LEDGER_CLIENT_SECRET must be set to connect a ledger");
    this.name = "LedgerNotConfiguredError";
  }
}

/** A PKCE verifier (43 characters of base64url) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export function authorizeUrl(
  settings: LedgerOAuthSettings,
  input: { redirectUri: string; state: string; codeChallenge: string },
): string {
  if (!settings.LEDGER_CLIENT_ID) throw new LedgerNotConfiguredError();
  const url = new URL(settings.LEDGER_AUTHORIZE_URL);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", settings.LEDGER_CLIENT_ID);
  url.searchParams.set("redirect_uri", input.redirectUri);
  url.searchParams.set("scope", settings.LEDGER_SCOPES);
  url.searchParams.set("state", input.state);
  url.searchParams.set("code_challenge", input.codeChallenge);
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

async function tokenCall(
  settings: LedgerOAuthSettings,
  form: Record<string, string>,
  now: Date,
  fetchImpl: typeof fetch,
): Promise<LedgerTokens> {
  const { LEDGER_CLIENT_ID: id, LEDGER_CLIENT_SECRET: secret } = settings;
  if (!id || !secret) throw new LedgerNotConfiguredError();
  const res = await fetchImpl(settings.LEDGER_TOKEN_URL, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    },
    body: new URLSearchParams(form).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) {
    const code = typeof body.error === "string" ? body.error : `http_${res.status}`;
    throw new LedgerOAuthError(code, res.status);
  }
  const access = body.access_token;
  const refresh = body.refresh_token;
  const expiresIn = Number(body.expires_in ?? 1800);
  if (typeof access !== "string" || typeof refresh !== "string") {
    throw new LedgerOAuthError("invalid_token_response", res.status);
  }
  return {
    accessToken: access,
    refreshToken: refresh,
    expiresAt: new Date(now.getTime() + expiresIn * 1000),
    scope: typeof body.scope === "string" ? body.scope : null,
  };
}

export function exchangeCode(
  settings: LedgerOAuthSettings,
  input: { code: string; redirectUri: string; codeVerifier: string; now: Date },
  fetchImpl: typeof fetch = fetch,
): Promise<LedgerTokens> {
  return tokenCall(
    settings,
    {
      grant_type: "authorization_code",
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
    },
    input.now,
    fetchImpl,
  );
}

export function refreshTokens(
  settings: LedgerOAuthSettings,
  input: { refreshToken: string; now: Date },
  fetchImpl: typeof fetch = fetch,
): Promise<LedgerTokens> {
  return tokenCall(
    settings,
    { grant_type: "refresh_token", refresh_token: input.refreshToken },
    input.now,
    fetchImpl,
  );
}

/** Revokes a refresh token (and with it the grant). */
export async function revokeToken(
  settings: LedgerOAuthSettings,
  refreshToken: string,
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  const { LEDGER_CLIENT_ID: id, LEDGER_CLIENT_SECRET: secret } = settings;
  if (!id || !secret) throw new LedgerNotConfiguredError();
  const res = await fetchImpl(settings.LEDGER_REVOKE_URL, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token: refreshToken }).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  await res.body?.cancel();
  if (!res.ok) throw new LedgerOAuthError(`http_${res.status}`, res.status);
}

/** `GET /connections`: the tenants a grant reaches. */
export async function listTenants(
  settings: Pick<LedgerSettings, "LEDGER_API_URL">,
  accessToken: string,
  fetchImpl: typeof fetch = fetch,
): Promise<LedgerTenant[]> {
  const res = await fetchImpl(`${settings.LEDGER_API_URL.replace(/\/+$/, "")}/connections`, {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
    signal: AbortSignal.timeout(30_000),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new LedgerOAuthError(`http_${res.status}`, res.status);
  }
  const body = (await res.json()) as unknown;
  if (!Array.isArray(body)) throw new LedgerOAuthError("invalid_connections_response", res.status);
  return body.flatMap((t: Record<string, unknown>) =>
    typeof t.tenantId === "string" && typeof t.id === "string"
      ? [
          {
            id: t.id,
            tenantId: t.tenantId,
            tenantName: typeof t.tenantName === "string" ? t.tenantName : t.tenantId,
            tenantType: typeof t.tenantType === "string" ? t.tenantType : "ORGANISATION",
          },
        ]
      : [],
  );
}

/** `DELETE /connections/{id}`: ends the grant to one tenant. A 404 means already gone. */
export async function deleteTenantConnection(
  settings: Pick<LedgerSettings, "LEDGER_API_URL">,
  accessToken: string,
  id: string,
  fetchImpl: typeof fetch = fetch,
): Promise<void> {
  const res = await fetchImpl(
    `${settings.LEDGER_API_URL.replace(/\/+$/, "")}/connections/${encodeURIComponent(id)}`,
    {
      method: "DELETE",
      headers: { authorization: `Bearer ${accessToken}` },
      signal: AbortSignal.timeout(30_000),
    },
  );
  await res.body?.cancel();
  if (!res.ok && res.status !== 404) throw new LedgerOAuthError(`http_${res.status}`, res.status);
}
