import { createHash, randomBytes, randomUUID } from "node:crypto";

/*
 * The fake's OAuth 2.0 state, as Xero's identity service behaves (mapping.md §2.3): codes are
 * single-use and bound to the redirect URI and the PKCE challenge; access tokens expire
 * (30 minutes by default); refresh tokens are single-use and rotate, the previous one may be
 * retried within a grace period (30 minutes) and then answers `invalid_grant`; revoking a
 * refresh token or revoking consent ends the whole grant.
 */

export interface Grant {
  id: string;
  /** connection id → tenant id: what `GET /connections` lists. */
  connections: Map<string, string>;
  scope: string;
  revoked: boolean;
  createdMs: number;
}

interface CodeEntry {
  grantId: string;
  redirectUri: string;
  clientId: string;
  codeChallenge?: string;
  expiresMs: number;
}

interface RefreshEntry {
  grantId: string;
  /** Set once used: the pair it was exchanged for, handed out again within the grace period. */
  usedMs?: number;
  replacement?: TokenPair;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "Bearer";
  scope: string;
}

export type TokenResult =
  | { ok: true; tokens: TokenPair }
  | { ok: false; status: 400 | 401; error: "invalid_grant" | "invalid_client" | "invalid_request" };

export class FakeIdentity {
  readonly grants = new Map<string, Grant>();
  private readonly codes = new Map<string, CodeEntry>();
  private readonly accessTokens = new Map<string, { grantId: string; expiresMs: number }>();
  private readonly refreshTokens = new Map<string, RefreshEntry>();
  /** Calls to the token endpoint with grant_type=refresh_token, answered or not. */
  refreshCalls = 0;

  constructor(
    private readonly opts: {
      clientId: string;
      clientSecret: string;
      accessTokenSeconds: number;
      refreshGraceMs: number;
      now: () => number;
    },
  ) {}

  /** Approves a consent request: a new grant to `tenantIds`, and a code for the redirect. */
  approve(input: {
    clientId: string;
    redirectUri: string;
    scope: string;
    codeChallenge?: string;
    tenantIds: string[];
  }): string {
    const grant: Grant = {
      id: randomUUID(),
      connections: new Map(input.tenantIds.map((t) => [randomUUID(), t])),
      scope: input.scope,
      revoked: false,
      createdMs: this.opts.now(),
    };
    this.grants.set(grant.id, grant);
    const code = token(24);
    this.codes.set(code, {
      grantId: grant.id,
      redirectUri: input.redirectUri,
      clientId: input.clientId,
      codeChallenge: input.codeChallenge,
      expiresMs: this.opts.now() + 5 * 60_000,
    });
    return code;
  }

  checkClient(authorization: string | undefined): boolean {
    if (!authorization?.startsWith("Basic ")) return false;
    const decoded = Buffer.from(authorization.slice(6), "base64").toString("utf8");
    return decoded === `${this.opts.clientId}:${this.opts.clientSecret}`;
  }

  exchangeCode(input: { code: string; redirectUri: string; codeVerifier?: string }): TokenResult {
    const entry = this.codes.get(input.code);
    this.codes.delete(input.code); // single use, even when the exchange fails
    if (!entry || entry.expiresMs < this.opts.now() || entry.redirectUri !== input.redirectUri) {
      return { ok: false, status: 400, error: "invalid_grant" };
    }
    if (entry.codeChallenge) {
      const verifier = input.codeVerifier ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (challenge !== entry.codeChallenge)
        return { ok: false, status: 400, error: "invalid_grant" };
    }
    const grant = this.grants.get(entry.grantId);
    if (!grant || grant.revoked) return { ok: false, status: 400, error: "invalid_grant" };
    return { ok: true, tokens: this.issue(grant) };
  }

  refresh(refreshToken: string): TokenResult {
    this.refreshCalls += 1;
    const entry = this.refreshTokens.get(refreshToken);
    const grant = entry ? this.grants.get(entry.grantId) : undefined;
    if (!entry || !grant || grant.revoked)
      return { ok: false, status: 400, error: "invalid_grant" };
    const now = this.opts.now();
    if (entry.usedMs !== undefined) {
      if (now - entry.usedMs <= this.opts.refreshGraceMs && entry.replacement) {
        return { ok: true, tokens: entry.replacement };
      }
      return { ok: false, status: 400, error: "invalid_grant" };
    }
    const tokens = this.issue(grant);
    entry.usedMs = now;
    entry.replacement = tokens;
    return { ok: true, tokens };
  }

  /** Revocation endpoint: a refresh token ends its grant. Unknown tokens are ignored (RFC 7009). */
  revoke(refreshToken: string): void {
    const entry = this.refreshTokens.get(refreshToken);
    if (entry) this.revokeGrant(entry.grantId);
  }

  /** The user withdraws consent (in Xero: "Disconnect" in the connected-apps list). */
  revokeGrant(grantId: string): void {
    const grant = this.grants.get(grantId);
    if (grant) grant.revoked = true;
  }

  /** Revokes every grant: the fault switch "revoked consent". */
  revokeAll(): void {
    for (const g of this.grants.values()) g.revoked = true;
  }

  /** The grant an unexpired access token belongs to, or undefined. */
  grantOf(accessToken: string | undefined): Grant | undefined {
    if (!accessToken) return undefined;
    const entry = this.accessTokens.get(accessToken);
    if (!entry || entry.expiresMs <= this.opts.now()) return undefined;
    const grant = this.grants.get(entry.grantId);
    return grant && !grant.revoked ? grant : undefined;
  }

  /** Every access and refresh token issued so far (tests look for them where none may be). */
  issuedTokens(): string[] {
    return [...this.accessTokens.keys(), ...this.refreshTokens.keys()];
  }

  /** Expires every access token now, so the next call must refresh. */
  expireAccessTokens(): void {
    for (const entry of this.accessTokens.values()) entry.expiresMs = 0;
  }

  private issue(grant: Grant): TokenPair {
    const access = token(32);
    const refresh = token(32);
    this.accessTokens.set(access, {
      grantId: grant.id,
      expiresMs: this.opts.now() + this.opts.accessTokenSeconds * 1000,
    });
    this.refreshTokens.set(refresh, { grantId: grant.id });
    return {
      access_token: access,
      refresh_token: refresh,
      expires_in: this.opts.accessTokenSeconds,
      token_type: "Bearer",
      scope: grant.scope,
    };
  }
}

function token(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}
