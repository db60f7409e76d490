import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { CreditDecision, CreditWindowState } from "../../domain/metering/credit-window.ts";
import type { PlanName } from "../../domain/metering/plans.ts";
import {
  type BillingContext,
  type BillingRow,
  billingContextFromRow,
} from "../billing/billing-context.ts";
import { type GiveUp, KeyedBatcher } from "./keyed-batcher.ts";

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
  /**
   * Aborted when the caller gave up (it answered 503): a call still waiting for its batch is
   * then dropped unsent, so it can neither use a credit nor buy a top-up pack.
   */
  signal?: GiveUp;
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

/** JSON of the limits objects, which are made once per metering instance (per-call cost). */
const limitsJson = new WeakMap<object, string>();
function jsonOf(limits: object): string {
  let json = limitsJson.get(limits);
  if (json === undefined) {
    json = JSON.stringify(limits);
    limitsJson.set(limits, json);
  }
  return json;
}

/**
 * Small ids for limits objects, equal for equal contents (the JSON of each object is made once:
 * the metering's limits are made once per instance).
 */
const limitsIds = new WeakMap<object, number>();
const limitsIdsByJson = new Map<string, number>();
function limitsIdOf(limits: object): number {
  let id = limitsIds.get(limits);
  if (id === undefined) {
    const json = jsonOf(limits);
    id = limitsIdsByJson.get(json);
    if (id === undefined) {
      id = limitsIdsByJson.size;
      limitsIdsByJson.set(json, id);
    }
    limitsIds.set(limits, id);
  }
  return id;
}

const DAY_MS = 86_400_000;

/**
 * Admissions that may share one statement: same seat window, UTC day and limits. (A map key
 * only: built on every call, so it stays short.)
 */
export function admissionGroup(input: CreditAdmitInput): string {
  const day = Math.floor(input.now.getTime() / DAY_MS);
  return `${input.userId}\u0000${input.orgId}\u0000${input.windowMs}\u0000${day}\u0000${limitsIdOf(input.allowance)}\u0000${limitsIdOf(input.packs)}`;
}

/** One statement admitting a batch of one group, in order (src/db/functions/metering.sql). */
async function admitBatch(db: DbOrTx, inputs: CreditAdmitInput[]): Promise<CreditAdmitResult[]> {
  const first = inputs[0];
  if (!first) return [];
  const latestMs = Math.max(...inputs.map((i) => i.now.getTime()));
  const cutoff = new Date(latestMs - first.windowMs);
  const items = inputs.map((i) => ({
    key: i.keyId,
    route: i.route,
    request: i.requestId,
    at: i.now.toISOString(),
  }));
  const result = await db.execute(sql`
    SELECT * FROM metering_admit_batch(
      ${first.userId}::text, ${first.orgId}::text, ${cutoff.toISOString()}::timestamptz,
      ${utcDay(first.now)}::date, ${jsonOf(first.allowance)}::jsonb,
      ${jsonOf(first.packs)}::jsonb, ${JSON.stringify(items)}::jsonb)`);
  const rows = rowsOf<AdmitRow & { r_ord: number }>(result);
  if (rows.length !== inputs.length) {
    throw new Error(`metering_admit_batch answered ${rows.length} rows for ${inputs.length}`);
  }
  return rows.map((row, i) => {
    const context = billingContextFromRow(row);
    return {
      decision: row.r_decision,
      context,
      useId: row.r_use_id === null ? null : String(row.r_use_id),
      state: windowState(row, context, inputs[i] as CreditAdmitInput),
      quotaUsed: Number(row.r_quota_used),
    };
  });
}

/**
 * Query credits in PostgreSQL (or PGlite): one `credit_uses` row per use. Admission is one
 * statement, `metering_admit_batch` (src/db/functions/metering.sql): it reads the billing account, seat and ledger
 * connection, locks the (user, billing account) window row, brings its running count up to date,
 * decides each call in order, and records the uses and the daily bucket, so admission is exact
 * across any number of instances.
 *
 * Group admission: calls of one (user, organisation) that arrive while one of theirs is in
 * flight wait and go together in the next statement (KeyedBatcher). An idle pair pays nothing
 * extra; a busy one pays one round trip, one lock and one commit per batch rather than per call
 * (on the bank-accounts benchmark the per-call statement had capped a key at the rate one lock
 * holder could be served).
 */
export function pgCreditStore(db: DbOrTx): CreditStore {
  const batcher = new KeyedBatcher<CreditAdmitInput, CreditAdmitResult>((_group, inputs) =>
    admitBatch(db, inputs),
  );
  return {
    admit: (input) => batcher.run(admissionGroup(input), input, input.signal),

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
