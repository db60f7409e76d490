import type { Db } from "../db/client.ts";
import type { KeyKind, KeyReach } from "../db/schema/index.ts";
import type { KeyStopReason } from "../domain/key-governance.ts";
import type { Scope } from "../domain/scopes.ts";
import { hasScope } from "../domain/scopes.ts";
import { InsufficientScopeError } from "./errors.ts";

/** The organisation a request reads, as resolved by the pipeline. */
export interface OrgRef {
  id: string;
  name: string;
  baseCurrency: string;
  timezone: string;
  financialYearEndMonth: number;
  financialYearEndDay: number;
  billingAccountId: string | null;
}

/** A verified API key, as the pipeline hands it on. Never carries the secret. */
export interface AuthenticatedKey {
  id: string;
  prefix: string;
  family: "cr_live" | "crun";
  kind: KeyKind;
  reach: KeyReach;
  scopes: readonly Scope[];
  label: string;
  /** The key's creator: for partner keys, the partner user. Credits are charged to this user. */
  createdByUserId: string;
  orgId: string | null;
  partnerId: string | null;
  pinnedOrgIds: readonly string[] | null;
  /** An organisation key's own organisation, read with the key (its whole reach). */
  ownOrg?: OrgRef;
  /**
   * Set when the secret matched but the key must be refused anyway (a partner key whose creator
   * no longer owns the partner): the pipeline answers 401 as for a revoked key and records the
   * reason in the audit row.
   */
  stoppedBecause?: KeyStopReason;
}

/** What every service verb receives: who asks, for which organisation, and the clients. */
export interface ServiceContext {
  db: Db;
  /** The request's instant, from the injected clock. */
  now: Date;
  org: OrgRef;
  actor: { type: "apiKey"; key: AuthenticatedKey } | { type: "system" };
  scopes: readonly Scope[];
}

/** Re-checks a scope inside a verb (the route checked it first); fail-closed. */
export function requireScope(ctx: ServiceContext, scope: Scope): void {
  if (ctx.actor.type === "system") return;
  if (!hasScope(ctx.scopes, scope)) throw new InsufficientScopeError(scope);
}

export function canSeeSensitive(ctx: ServiceContext): boolean {
  return ctx.actor.type === "system" || hasScope(ctx.scopes, "READ_SENSITIVE");
}
