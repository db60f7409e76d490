import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./generated/xero-accounting.ts";
import {
  DEFAULT_LEDGER_POLICY,
  LedgerHttpError,
  LedgerPolicy,
  type LedgerPolicyOptions,
  LedgerReconnectRequiredError,
  type SharedCallLimiter,
  type TenantGate,
  tenantGate,
} from "./policy.ts";

/** Hands out a valid access token; `force` refreshes even if the stored one looks valid. */
export interface AccessTokenProvider {
  accessToken(options?: { force?: boolean }): Promise<string>;
}

export interface XeroClientOptions {
  /** `https://api.xero.com` (LEDGER_API_URL): `/connections` and `/api.xro/2.0/…` under it. */
  apiUrl: string;
  tenantId: string;
  tokens: AccessTokenProvider;
  /** The connection's policy (breaker, retries); one per connection, kept across syncs. */
  policy?: LedgerPolicy;
  policyOptions?: LedgerPolicyOptions;
  /** The tenant's limits shared with other instances (PostgreSQL); default: this process's. */
  shared?: SharedCallLimiter;
  /** The process's tenant gates (tests give each simulated instance its own). */
  gates?: Map<string, TenantGate>;
  fetch?: typeof fetch;
}

/**
 * The typed Xero Accounting client: openapi-fetch over the types generated from the pinned
 * `xero_accounting.yaml` (`npm run ledger:types`), every call through the ledger policy
 * (policy.ts) with the tenant header, `Accept: application/json` (Xero answers XML otherwise),
 * comma-joined array parameters (`Statuses=A,B`), and one token refresh on a 401.
 */
export class XeroClient {
  readonly api: Client<paths>;
  readonly policy: LedgerPolicy;
  readonly gate: TenantGate;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly opts: XeroClientOptions) {
    const policyOptions = opts.policyOptions ?? DEFAULT_LEDGER_POLICY;
    this.policy = opts.policy ?? new LedgerPolicy(policyOptions);
    this.gate = tenantGate(opts.tenantId, policyOptions, {
      shared: opts.shared,
      registry: opts.gates,
    });
    this.fetchImpl = opts.fetch ?? globalThis.fetch;
    this.api = createClient<paths>({
      baseUrl: `${opts.apiUrl.replace(/\/+$/, "")}/api.xro/2.0`,
      headers: { Accept: "application/json" },
      querySerializer: { array: { style: "form", explode: false } },
      fetch: (request) => this.send(request),
    });
  }

  get tenantId(): string {
    return this.opts.tenantId;
  }

  /** The tenant header every accounting call carries, with If-Modified-Since when given. */
  headers(since?: Date): { "xero-tenant-id": string; "If-Modified-Since"?: string } {
    return since
      ? {
          "xero-tenant-id": this.opts.tenantId,
          "If-Modified-Since": since.toISOString().slice(0, 19),
        }
      : { "xero-tenant-id": this.opts.tenantId };
  }

  private async send(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const label = `${request.method} ${url.pathname.replace(/^.*\/api\.xro\/2\.0/, "")}`;
    const attempt = (force: boolean) => async (signal: AbortSignal) => {
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${await this.opts.tokens.accessToken({ force })}`);
      return this.fetchImpl(request.url, { method: request.method, headers, signal });
    };
    try {
      return await this.policy.send(this.gate, label, attempt(false));
    } catch (e) {
      if (!(e instanceof LedgerHttpError) || e.status !== 401) throw rethrow(e);
    }
    // The token was refused although we thought it valid (revoked, or expired early): refresh
    // once; a second refusal means consent is gone.
    try {
      return await this.policy.send(this.gate, label, attempt(true));
    } catch (e) {
      throw rethrow(e);
    }
  }
}

function rethrow(e: unknown): unknown {
  if (e instanceof LedgerHttpError && (e.status === 401 || e.status === 403)) {
    return new LedgerReconnectRequiredError(
      e.status === 403
        ? "the ledger refused access to this organisation; reconnect to grant access again"
        : undefined,
    );
  }
  return e;
}
