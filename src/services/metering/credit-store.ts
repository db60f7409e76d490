import { sql } from "drizzle-orm";
import { textArray } from "../../db/array-literal.ts";
import type { DbOrTx } from "../../db/client.ts";
import { isoInstant } from "../../domain/iso-instant.ts";
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
  /**
   * Admits from memory when the store can (a reservation this instance holds for the pair),
   * synchronously; null when the call must go to `admit`.
   */
  admitHeld?(input: CreditAdmitInput): CreditAdmitResult | null;
  /** Gives a use back; false if it was already refunded. */
  refund(useId: string): Promise<boolean>;
  /** Billing and the window of the user's seat, without admitting anything (/status). */
  inspect(input: CreditRequest): Promise<CreditInspectResult>;
  /** One seat's window and the organisation's daily bucket, without admitting anything. */
  read(input: CreditReadInput): Promise<{ state: CreditWindowState; quotaUsed: number }>;
  /** Writes what the store holds in memory, if anything (graceful shutdown). */
  close?(): Promise<void>;
}

interface WindowRow extends BillingRow {
  r_used: number | null;
  r_top_up: number | null;
  r_frees_at_ms: number | null;
  r_newest_at_ms: number | null;
  r_quota_used: number;
}

interface AdmitRow extends WindowRow {
  /** `wait`: refused or a pack needed while reservations hold credits; retried (see admit). */
  r_decision: CreditAdmitResult["decision"] | "wait";
  r_use_id: string | number | null;
}

/** How long a call told to wait for reservations waits before its next try: 2, 4, 8, 16, then
 * every 20 ms. */
const waitBeforeRetry = (tries: number) => Math.min(20, 2 ** tries);

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

/** One statement admitting a batch of one group, in order (drizzle/0012_metering_admit_batch.sql). */
async function admitBatch(
  db: DbOrTx,
  inputs: CreditAdmitInput[],
): Promise<(CreditAdmitResult | "wait")[]> {
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
    if (row.r_decision === "wait") return "wait";
    const context = billingContextFromRow(row);
    return {
      decision: row.r_decision as CreditAdmitResult["decision"],
      context,
      useId: row.r_use_id === null ? null : String(row.r_use_id),
      state: windowState(row, context, inputs[i] as CreditAdmitInput),
      quotaUsed: Number(row.r_quota_used),
    };
  });
}

/**
 * Query credits in PostgreSQL (or PGlite): one `credit_uses` row per use. Admission is one
 * statement, `metering_admit_batch` (drizzle/0012): it reads the billing account, seat and ledger
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
export function pgCreditStore(db: DbOrTx): PgCreditStore {
  const batcher = new KeyedBatcher<CreditAdmitInput, CreditAdmitResult | "wait">((_group, inputs) =>
    admitBatch(db, inputs),
  );
  const admitOnce = (input: CreditAdmitInput) =>
    batcher.run(admissionGroup(input), input, input.signal);
  return {
    admitOnce,
    admit: (input) => admitWaiting(input, admitOnce),

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

/** The PostgreSQL store, with the one-statement admission that may answer `wait`. */
export interface PgCreditStore extends CreditStore {
  admitOnce(input: CreditAdmitInput): Promise<CreditAdmitResult | "wait">;
}

/**
 * Admits through `attempt`; a call told to wait (credits held by a reservation,
 * docs/metering.md) is decided again shortly, at the instant it is then admitted at, until the
 * holder settles or its reservation expires. The metering guard's timeout bounds the wait.
 */
export async function admitWaiting(
  first: CreditAdmitInput,
  attempt: (input: CreditAdmitInput) => Promise<CreditAdmitResult | "wait">,
): Promise<CreditAdmitResult> {
  const started = performance.now();
  let input = first;
  for (let tries = 1; ; tries++) {
    const result = await attempt(input);
    if (result !== "wait") return result;
    await new Promise((resolve) => setTimeout(resolve, waitBeforeRetry(tries)));
    if (input.signal?.aborted) throw input.signal.reason;
    const waited = Math.round(performance.now() - started);
    input = { ...first, now: new Date(first.now.getTime() + waited) };
  }
}

/** A reservation request (metering_reserve, drizzle/0016). */
export interface ReserveInput extends CreditRequest {
  /** Credits asked for. */
  want: number;
  /** Credits left available to every other caller; nothing is granted below it. */
  floor: number;
  /** Other callers give the reservation back this long after its grant (database clock). */
  expiresAfterMs: number;
}

/** What a reservation holds, with the window and billing figures when it was granted. */
export interface Reservation {
  /** Null when nothing was granted. */
  id: string | null;
  plan: number;
  topUp: number;
  context: BillingContext;
  /** Null without a billable seat (nothing granted). */
  state: CreditWindowState | null;
  quotaUsed: number;
}

/** One use admitted from a reservation, written when it settles. */
export interface ReservedUse {
  keyId: string;
  route: string;
  requestId: string;
  at: Date;
  source: "plan" | "top_up";
}

/** Holds credits for one instance (docs/metering.md, "Reservations"). */
export async function reserveCredits(db: DbOrTx, input: ReserveInput): Promise<Reservation> {
  const cutoff = new Date(input.now.getTime() - input.windowMs);
  const result = await db.execute(sql`
    SELECT * FROM metering_reserve(
      ${input.userId}::text, ${input.orgId}::text, ${cutoff.toISOString()}::timestamptz,
      ${input.now.toISOString()}::timestamptz, ${utcDay(input.now)}::date,
      ${JSON.stringify(input.allowance)}::jsonb, ${input.want}::int, ${input.floor}::int,
      ${input.expiresAfterMs}::int)`);
  const [row] = rowsOf<
    WindowRow & {
      r_reservation: string | number | null;
      r_granted_plan: number;
      r_granted_top_up: number;
    }
  >(result);
  if (!row) throw new Error("metering_reserve returned no row");
  const context = billingContextFromRow(row);
  return {
    id: row.r_reservation === null ? null : String(row.r_reservation),
    plan: Number(row.r_granted_plan),
    topUp: Number(row.r_granted_top_up),
    context,
    state: windowState(row, context, input),
    quotaUsed: Number(row.r_quota_used),
  };
}

/**
 * Writes uses admitted from a reservation and, with `done`, ends it (giving back what it still
 * holds). Returns the uses' ids, in order. The uses travel as one array parameter per column
 * (`metering_settle_columns`, drizzle/0018): no per-row JSON to build here or take apart there.
 */
export async function settleReservation(
  db: DbOrTx,
  reservation: { id: string; userId: string; billingAccountId: string; orgId: string },
  uses: readonly ReservedUse[],
  done: boolean,
): Promise<string[]> {
  const n = uses.length;
  const keys = new Array<string>(n);
  const routes = new Array<string>(n);
  const requests = new Array<string>(n);
  const sources = new Array<string>(n);
  const ats = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const u = uses[i] as ReservedUse;
    keys[i] = u.keyId;
    routes[i] = u.route;
    requests[i] = u.requestId;
    sources[i] = u.source;
    ats[i] = isoInstant(u.at.getTime());
  }
  // Each column is one bound parameter, sent as an array literal (db/array-literal.ts).
  const result = await db.execute(sql`
    SELECT metering_settle_columns(
      ${reservation.id}::bigint, ${reservation.userId}::text,
      ${reservation.billingAccountId}::text, ${reservation.orgId}::text,
      ${textArray(keys)}::text[], ${textArray(routes)}::text[], ${textArray(requests)}::text[],
      ${textArray(sources)}::text[], ${textArray(ats)}::timestamptz[], ${done}::boolean) AS ids`);
  const [row] = rowsOf<{ ids: (string | number | bigint)[] | string }>(result);
  const ids = row ? idArray(row.ids) : [];
  if (ids.length !== n) {
    throw new Error(`metering_settle_columns answered ${ids.length} ids for ${n} uses`);
  }
  return ids;
}

/**
 * A bigint[] as the drivers hand it over: node-postgres parses it into strings; PGlite gives
 * numbers (ids stay far below 2^53) or, without a parser for the type, the array literal.
 */
function idArray(value: (string | number | bigint)[] | string): string[] {
  if (typeof value === "string") {
    const inner = value.slice(1, -1);
    return inner === "" ? [] : inner.split(",");
  }
  return value.map(String);
}
