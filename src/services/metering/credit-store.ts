import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { CreditDecision, CreditWindowState } from "../../domain/metering/credit-window.ts";
import type { PlanName } from "../../domain/metering/plans.ts";
import {
  type BillingContext,
  type BillingRow,
  billingContextFromRow,
} from "../billing/billing-context.ts";

/** What one admission or read needs: who, for which organisation, when, under which limits. */
export interface CreditRequest {
  userId: string;
  orgId: string;
  now: Date;
  windowMs: number;
  /** Credits per window for each seat plan. */
  allowance: Record<PlanName, number>;
}

export interface CreditAdmitInput extends CreditRequest {
  keyId: string;
  route: string;
  requestId: string;
  /** Credits of a top-up pack per seat plan (null = none). */
  packs: Record<PlanName, number | null>;
}

export interface CreditAdmitResult {
  /** `no_account` / `no_seat`: nothing was counted (no billable seat). */
  decision: CreditDecision | "no_account" | "no_seat";
  context: BillingContext;
  /** The recorded use (refund handle); null when nothing was recorded. */
  useId: string | null;
  /** The window after this admission; null without a billable seat. */
  state: CreditWindowState | null;
  /** The organisation's admitted calls this UTC day, after this one. */
  quotaUsed: number;
}

export interface CreditInspectResult {
  context: BillingContext;
  /** Null without a billable seat. */
  state: CreditWindowState | null;
  quotaUsed: number;
}

/** One known seat's window (the settings page reads every seat of an account). */
export interface CreditReadInput {
  userId: string;
  billingAccountId: string;
  orgId: string;
  now: Date;
  windowMs: number;
  /** The seat plan's allowance. */
  limit: number;
}

/** Where query-credit uses live. Every method throws when the store cannot be reached. */
export interface CreditStore {
  /** Atomically: read billing, count the window, decide, record the use (or refuse). */
  admit(input: CreditAdmitInput): Promise<CreditAdmitResult>;
  /** Gives a use back; false if it was already refunded. */
  refund(useId: string): Promise<boolean>;
  /** Billing and the window of the user's seat, without admitting anything (/status). */
  inspect(input: CreditRequest): Promise<CreditInspectResult>;
  /** One seat's window and the organisation's daily bucket, without admitting anything. */
  read(input: CreditReadInput): Promise<{ state: CreditWindowState; quotaUsed: number }>;
}

interface WindowRow extends BillingRow {
  r_used: number | null;
  r_top_up: number | null;
  r_frees_at_ms: number | null;
  r_newest_at_ms: number | null;
  r_quota_used: number;
}

interface AdmitRow extends WindowRow {
  r_decision: CreditAdmitResult["decision"];
  r_use_id: string | number | null;
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const instant = (ms: number | null) => (ms === null ? null : new Date(Math.round(Number(ms))));
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

function windowState(row: WindowRow, context: BillingContext, input: CreditRequest) {
  if (row.r_used === null || !context.seatPlan) return null;
  return {
    limit: input.allowance[context.seatPlan],
    used: Number(row.r_used),
    topUpCredits: Number(row.r_top_up ?? 0),
    freesUseAt: instant(row.r_frees_at_ms),
    newestUseAt: instant(row.r_newest_at_ms),
  } satisfies CreditWindowState;
}

/**
 * Query credits in PostgreSQL (or PGlite): one `credit_uses` row per use. A metered request
 * costs one statement: `metering_admit` (drizzle/0004_metering.sql) reads the billing account,
 * seat and ledger connection, locks the (user, billing account) window row, brings its running
 * count up to date, decides, and records the use and the daily bucket, so admission is exact
 * across any number of instances.
 */
export function pgCreditStore(db: DbOrTx): CreditStore {
  return {
    async admit(input) {
      const cutoff = new Date(input.now.getTime() - input.windowMs);
      const result = await db.execute(sql`
        SELECT * FROM metering_admit(
          ${input.userId}::text, ${input.orgId}::text, ${input.keyId}::text,
          ${input.route}::text, ${input.requestId}::text,
          ${input.now.toISOString()}::timestamptz, ${cutoff.toISOString()}::timestamptz,
          ${utcDay(input.now)}::date, ${JSON.stringify(input.allowance)}::jsonb,
          ${JSON.stringify(input.packs)}::jsonb)`);
      const [row] = rowsOf<AdmitRow>(result);
      if (!row) throw new Error("metering_admit returned no row");
      const context = billingContextFromRow(row);
      return {
        decision: row.r_decision,
        context,
        useId: row.r_use_id === null ? null : String(row.r_use_id),
        state: windowState(row, context, input),
        quotaUsed: Number(row.r_quota_used),
      };
    },

    async refund(useId) {
      const result = await db.execute(sql`SELECT metering_refund(${useId}::bigint) AS refunded`);
      return rowsOf<{ refunded: boolean }>(result)[0]?.refunded === true;
    },

    async inspect(input) {
      const cutoff = new Date(input.now.getTime() - input.windowMs);
      const result = await db.execute(sql`
        SELECT * FROM metering_state(
          ${input.userId}::text, ${input.orgId}::text, ${cutoff.toISOString()}::timestamptz,
          ${utcDay(input.now)}::date, ${JSON.stringify(input.allowance)}::jsonb)`);
      const [row] = rowsOf<WindowRow>(result);
      if (!row) throw new Error("metering_state returned no row");
      const context = billingContextFromRow(row);
      return {
        context,
        state: windowState(row, context, input),
        quotaUsed: Number(row.r_quota_used),
      };
    },

    async read(input) {
      const cutoff = new Date(input.now.getTime() - input.windowMs);
      const result = await db.execute(sql`
        SELECT * FROM metering_window(
          ${input.userId}::text, ${input.billingAccountId}::text, ${input.orgId}::text,
          ${cutoff.toISOString()}::timestamptz, ${input.limit}::int, ${utcDay(input.now)}::date)`);
      const [row] = rowsOf<WindowRow>(result);
      if (!row) throw new Error("metering_window returned no row");
      return {
        state: {
          limit: input.limit,
          used: Number(row.r_used ?? 0),
          topUpCredits: Number(row.r_top_up ?? 0),
          freesUseAt: instant(row.r_frees_at_ms),
          newestUseAt: instant(row.r_newest_at_ms),
        },
        quotaUsed: Number(row.r_quota_used),
      };
    },
  };
}
