import type { DbOrTx } from "../../db/client.ts";
import type { CreditWindowState } from "../../domain/metering/credit-window.ts";
import type { BillingContext } from "../billing/billing-context.ts";
import {
  admissionGroup,
  admitWaiting,
  type CreditAdmitInput,
  type CreditAdmitResult,
  type CreditStore,
  type PgCreditStore,
  pgCreditStore,
  type ReservedUse,
  reserveCredits,
  settleReservation,
} from "./credit-store.ts";

/** When a (user, organisation) is busy enough to reserve for, and how reservations behave. */
export interface ReservationPolicy {
  /** Credits a pair's first reservation asks for. */
  want: number;
  /** The most one reservation asks for (a pair that spends them quickly asks for more). */
  maxWant: number;
  /** Credits a reservation leaves available to every other caller (none granted below it). */
  floor: number;
  /** Admissions of one pair within `busyWindowMs` (its calls' instants) that make it busy. */
  busyCalls: number;
  busyWindowMs: number;
  /**
   * A reservation admits calls whose instants fall within this long of its grant (either side),
   * then ends.
   */
  holdMs: number;
  /**
   * Other callers give a reservation back this long after its grant, by the database's clock
   * (its holder stopped or stalled). Longer than `holdMs`, so a live holder settles first.
   */
  expiresAfterMs: number;
  /** Uses admitted from a reservation are written at least this often (wall clock). */
  settleEveryMs: number;
}

export const DEFAULT_RESERVATION_POLICY: ReservationPolicy = {
  want: 32,
  maxWant: 1024,
  floor: 32,
  busyCalls: 16,
  busyWindowMs: 1_000,
  holdMs: 500,
  expiresAfterMs: 1_000,
  settleEveryMs: 100,
};

/**
 * Refund handles of uses admitted from a reservation read `r<reservation id>.<sequence>`; the
 * sequence grows with every use this instance admits from any reservation.
 */
const LOCAL_PREFIX = "r";
/** Settled uses whose refund handles stay valid (a 5xx refunds within a request's lifetime). */
const SETTLED_IDS_KEPT = 20_000;

/** A use admitted from a reservation, not yet written. */
interface PendingUse extends ReservedUse {
  sequence: number;
}

/**
 * Uses one settlement wrote: their sequences (ascending) and database ids, in the same order.
 * A refunded one's id is blanked.
 */
interface SettledBatch {
  reservationId: string;
  sequences: number[];
  ids: string[];
}

/** A reservation this instance holds, and what it admitted from it. */
interface Held {
  group: string;
  id: string;
  userId: string;
  orgId: string;
  billingAccountId: string;
  planLeft: number;
  topUpLeft: number;
  /** The instant range (calls' clock) it admits in. */
  grantedAtMs: number;
  stopAtMs: number;
  /** Figures when granted, and what was admitted from it since. */
  context: BillingContext;
  state: CreditWindowState;
  quotaUsed: number;
  planTaken: number;
  topUpTaken: number;
  /** Of those, already written (and so in the figures the database answers). */
  planSettled: number;
  topUpSettled: number;
  newestPlanAt: Date | null;
  /** Admitted, not yet written. */
  pending: PendingUse[];
  /** The pair's next reservation, asked for before this one runs out; takes over when it ends. */
  next: Held | null;
  /** Uses taken since the last settle timer tick: an idle reservation is given back early. */
  takenSinceTick: number;
  ended: boolean;
  /** The settlement in flight, if any (one at a time per reservation). */
  settling: Promise<void>;
  settlingNow: boolean;
  settleAgain: boolean;
}

/**
 * Query credits with reservations (docs/metering.md, "Reservations"). Calls go to group admission
 * (`pgCreditStore`) one statement per batch, exactly as before, until a (user, organisation) is
 * busy: then this instance reserves a few credits (`metering_reserve`) and admits the pair's
 * calls from memory, writing their uses in one statement every `settleEveryMs`
 * (`metering_settle`) and giving back what it did not use when the reservation ends (spent, idle,
 * or `holdMs` old). Exactness across instances holds in the database: held credits count as
 * used for everyone else, and a call that would be refused, or buy a pack, while credits are held
 * waits for them instead (see drizzle/0016).
 *
 * What a reservation changes: a use admitted from it is written up to `settleEveryMs` later
 * (a crash loses those uses, in the customer's favour; a graceful shutdown writes them), and the
 * window figures on its responses are this instance's view (the grant's figures plus its own
 * uses since).
 */
export class ReservingCreditStore implements CreditStore {
  private readonly inner: PgCreditStore;
  private readonly held = new Map<string, Held>();
  /** Reservation requests in flight, by group (one at a time per group). */
  private readonly reserving = new Map<string, Promise<void>>();
  /** Those requests (close() waits for them). */
  private readonly requests = new Set<Promise<void>>();
  /** Recent admission instants per group (busy detection). */
  private readonly recent = new Map<string, number[]>();
  /** Credits the next reservation of a group asks for (see wantFor). */
  private readonly wants = new Map<string, number>();
  /**
   * Groups whose last reservation request was granted nothing (no credits to spare, e.g. a
   * top-up balance run down to the floor): until when (wall clock, ms) none is asked for again,
   * and the room the refusal saw. Group admission serves them meanwhile, and buys the next pack
   * when one is due; an admission that finds room for a whole reservation beyond what the refusal
   * saw (a pack was bought, credits freed) ends the wait at once.
   */
  private readonly refusedUntil = new Map<string, { untilMs: number; room: number }>();
  /**
   * The latest figures this instance answered per group, from group admission or a reservation
   * (a grant may predate them).
   */
  private readonly lastSeen = new Map<string, CreditAdmitResult>();
  /** Reservations ended but not yet fully written. */
  private readonly ending = new Set<Held>();
  /** Reservations whose uses may still be pending (a refund looks its use up there). */
  private readonly heldById = new Map<string, Held>();
  /**
   * The latest settlements, oldest first, about SETTLED_IDS_KEPT uses in all: what a refund of a
   * use already written looks up. Kept by batch, not by use, so that admitting and writing a use
   * costs no map entry (a use is refunded only when its request fails).
   */
  private readonly settled: SettledBatch[] = [];
  private settledUses = 0;
  private readonly timer: NodeJS.Timeout;
  private sequence = 0;
  private requestCount = 0;

  constructor(
    private readonly db: DbOrTx,
    private readonly policy: ReservationPolicy = DEFAULT_RESERVATION_POLICY,
  ) {
    this.inner = pgCreditStore(db);
    this.timer = setInterval(() => this.tick(), policy.settleEveryMs);
    this.timer.unref();
  }

  /** From this instance's reservation for the pair if it holds one, else by group admission. */
  admit(input: CreditAdmitInput): Promise<CreditAdmitResult> {
    // A call told to wait tries this instance's reservation again first: it may be the holder.
    return admitWaiting(input, (attempt) => this.admitOnce(attempt));
  }

  /** The hot path: a call of a pair this instance holds a live reservation for. */
  admitHeld(input: CreditAdmitInput): CreditAdmitResult | null {
    if (input.signal?.aborted) return null;
    return this.takeHeld(admissionGroup(input), input);
  }

  /**
   * Takes the call's credit from the pair's reservation, ending any that is spent or whose
   * instants the call falls outside of and going on with its successor; null when none is left.
   */
  private takeHeld(group: string, input: CreditAdmitInput): CreditAdmitResult | null {
    const at = input.now.getTime();
    for (let held = this.held.get(group); held; held = this.held.get(group)) {
      // Calls whose instant was taken a little before the grant (in flight meanwhile) still
      // take from it; an instant far outside (a clock moved) ends it.
      if (at < held.grantedAtMs - this.policy.holdMs || at >= held.stopAtMs) this.end(held);
      else {
        const admitted = this.takeFrom(held, input);
        if (admitted) return admitted;
      }
      // Ended either way (takeFrom ends a spent one); its successor, if any, is held now.
    }
    return null;
  }

  private async admitOnce(input: CreditAdmitInput): Promise<CreditAdmitResult | "wait"> {
    const group = admissionGroup(input);
    if (!input.signal?.aborted) {
      const admitted = this.takeHeld(group, input);
      if (admitted) return admitted;
      // The pair's next reservation is on its way (its current one ran out first): waiting for
      // it costs one round trip, as group admission would, without a statement of its own.
      const coming = this.reserving.get(group);
      if (coming) {
        await coming;
        const fromNext = input.signal?.aborted ? null : this.takeHeld(group, input);
        if (fromNext) return fromNext;
      }
    }
    // A reservation of this pair that just ended is written first, so the statement below (and
    // the figures it answers) counts every use this instance admitted.
    for (const ended of this.ending) if (ended.group === group) await ended.settling;
    const result = await this.inner.admitOnce(input);
    if (result !== "wait") this.noteAdmission(group, input, result);
    return result;
  }

  async refund(useId: string): Promise<boolean> {
    if (!useId.startsWith(LOCAL_PREFIX)) return this.inner.refund(useId);
    const dot = useId.lastIndexOf(".");
    const reservationId = useId.slice(LOCAL_PREFIX.length, dot);
    const sequence = Number(useId.slice(dot + 1));
    const held = this.heldById.get(reservationId);
    if (held) {
      const i = indexOfSequence(held.pending, sequence);
      if (i >= 0) {
        // Not written yet: it never will be, and the credit goes back to the reservation.
        const [gone] = held.pending.splice(i, 1);
        // (An ended reservation gives it back with the rest when it is written.)
        if (!held.ended && gone?.source === "plan") {
          held.planLeft += 1;
          held.planTaken -= 1;
        } else if (!held.ended) {
          held.topUpLeft += 1;
          held.topUpTaken -= 1;
        }
        return true;
      }
      // Being written: refund it once it is.
      await held.settling;
    }
    const settledId = this.takeSettledId(reservationId, sequence);
    return settledId === undefined ? false : this.inner.refund(settledId);
  }

  /** The database id of a written use, forgotten as it is handed out (a use refunds once). */
  private takeSettledId(reservationId: string, sequence: number): string | undefined {
    for (let b = this.settled.length - 1; b >= 0; b--) {
      const batch = this.settled[b] as SettledBatch;
      if (batch.reservationId !== reservationId) continue;
      const i = indexOfSequence(batch.sequences, sequence);
      if (i < 0) continue;
      const id = batch.ids[i];
      batch.ids[i] = "";
      return id || undefined;
    }
    return undefined;
  }

  private rememberSettled(held: Held, batch: readonly PendingUse[], ids: string[]): void {
    this.settled.push({ reservationId: held.id, sequences: batch.map((u) => u.sequence), ids });
    this.settledUses += batch.length;
    for (;;) {
      const oldest = this.settled[0];
      if (!oldest || this.settledUses - oldest.ids.length < SETTLED_IDS_KEPT) break;
      this.settled.shift();
      this.settledUses -= oldest.ids.length;
    }
  }

  /** The seat's window as the database has it, after writing this instance's uses for it. */
  async inspect(input: Parameters<CreditStore["inspect"]>[0]) {
    await this.writeUses((h) => h.userId === input.userId && h.orgId === input.orgId);
    return this.inner.inspect(input);
  }

  async read(input: Parameters<CreditStore["read"]>[0]) {
    await this.writeUses(
      (h) => h.userId === input.userId && h.billingAccountId === input.billingAccountId,
    );
    return this.inner.read(input);
  }

  /** Ends every reservation and writes every use admitted from them. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    // A reservation granted meanwhile is held when its request returns: wait for them first.
    await Promise.all(this.requests);
    // Ending one may hand the pair to its successor: end until none is held.
    while (this.held.size > 0) for (const held of [...this.held.values()]) this.end(held);
    for (const held of [...this.ending]) await held.settling;
    // A settlement that failed is tried once more; what still fails is lost (the database is
    // gone; those calls were served, and their reservation expires).
    for (const held of [...this.ending]) {
      this.settle(held);
      await held.settling;
    }
    await this.inner.close?.();
  }

  /**
   * Writes the uses this instance admitted from the matching reservations, so a read that
   * follows (/status, the settings page) counts them. Other instances' unwritten uses (at most
   * `settleEveryMs` of them) are not seen.
   */
  private async writeUses(match: (held: Held) => boolean): Promise<void> {
    const writing: Promise<void>[] = [];
    for (const held of [...this.held.values(), ...this.ending]) {
      if (!match(held)) continue;
      if (held.pending.length > 0) this.settle(held);
      writing.push(held.settling);
    }
    await Promise.all(writing);
  }

  /** Reservations currently held (tests). */
  get heldCount(): number {
    return this.held.size;
  }

  /** Reservation requests made so far (tests). */
  get requestsMade(): number {
    return this.requestCount;
  }

  /** Resolves once every reservation request in flight has been answered (tests). */
  async requestsAnswered(): Promise<void> {
    await Promise.all([...this.requests]);
  }

  private takeFrom(held: Held, input: CreditAdmitInput): CreditAdmitResult | null {
    let source: ReservedUse["source"];
    if (held.planLeft > 0) {
      source = "plan";
      held.planLeft -= 1;
      held.planTaken += 1;
      held.newestPlanAt = input.now;
    } else if (held.topUpLeft > 0) {
      source = "top_up";
      held.topUpLeft -= 1;
      held.topUpTaken += 1;
    } else {
      this.end(held);
      return null;
    }
    this.sequence += 1;
    held.pending.push({
      keyId: input.keyId,
      route: input.route,
      requestId: input.requestId,
      at: input.now,
      source,
      sequence: this.sequence,
    });
    held.takenSinceTick += 1;
    // Half spent, or in the last quarter of its instants: ask for the next one now, so the
    // pair's calls never fall back to group admission between two reservations.
    const left = held.planLeft + held.topUpLeft;
    const ending = input.now.getTime() >= held.stopAtMs - this.policy.holdMs / 4;
    if (
      (left * 2 < this.wantFor(held.group) || ending) &&
      !held.next &&
      !this.reserving.has(held.group)
    ) {
      this.request(held.group, input);
    }
    const state: CreditWindowState = {
      ...held.state,
      used: held.state.used + held.planTaken,
      topUpCredits: held.state.topUpCredits - held.topUpTaken,
      freesUseAt: held.state.freesUseAt ?? (held.planTaken > 0 ? held.newestPlanAt : null),
      newestUseAt: held.newestPlanAt ?? held.state.newestUseAt,
    };
    const result: CreditAdmitResult = {
      decision: source,
      context: held.context,
      useId: `${LOCAL_PREFIX}${held.id}.${this.sequence}`,
      state,
      quotaUsed: held.quotaUsed + held.planTaken + held.topUpTaken,
    };
    // The pair's latest figures on this instance: a reservation granted next counts on from them.
    this.lastSeen.set(held.group, result);
    if (held.planLeft === 0 && held.topUpLeft === 0) this.end(held);
    return result;
  }

  /** Counts admissions per pair; a busy pair with room to spare gets a reservation. */
  private noteAdmission(group: string, input: CreditAdmitInput, result: CreditAdmitResult): void {
    if (result.state) {
      this.lastSeen.set(group, result);
      if (this.lastSeen.size > 10_000) this.lastSeen.clear();
      const held = this.held.get(group);
      if (held) catchUp(held, result);
    }
    if (result.decision !== "plan" && result.decision !== "top_up") return;
    // The instants of the pair's last `busyCalls` admissions: busy when they span at most
    // `busyWindowMs`.
    const at = input.now.getTime();
    let recent = this.recent.get(group);
    if (!recent) {
      if (this.recent.size >= 10_000) this.recent.clear();
      recent = [];
      this.recent.set(group, recent);
    }
    recent.push(at);
    if (recent.length > this.policy.busyCalls) recent.shift();
    const oldest = recent[0] ?? at;
    if (recent.length < this.policy.busyCalls || Math.abs(at - oldest) > this.policy.busyWindowMs) {
      return;
    }
    if (this.held.has(group) || this.reserving.has(group)) return;
    const room = roomOf(result.state);
    // Any room above the floor is worth holding: a pair short of a whole reservation (its plan
    // credits running out, its top-up balance low) is granted what there is, rather than sending
    // every call to group admission until a pack is bought.
    if (room <= this.policy.floor) return;
    const refusal = this.refusedUntil.get(group);
    if (refusal && room > refusal.room && room >= this.wantFor(group) + this.policy.floor) {
      this.refusedUntil.delete(group);
    }
    this.request(group, input);
  }

  private request(group: string, input: CreditAdmitInput): void {
    const refused = this.refusedUntil.get(group);
    if (refused !== undefined) {
      if (performance.now() < refused.untilMs) return;
      this.refusedUntil.delete(group);
    }
    this.requestCount += 1;
    const request: Promise<void> = this.reserve(group, input).finally(() => {
      this.requests.delete(request);
      if (this.reserving.get(group) === request) this.reserving.delete(group);
    });
    this.requests.add(request);
    this.reserving.set(group, request);
  }

  private async reserve(group: string, input: CreditAdmitInput): Promise<void> {
    try {
      const granted = await reserveCredits(this.db, {
        userId: input.userId,
        orgId: input.orgId,
        now: input.now,
        windowMs: input.windowMs,
        allowance: input.allowance,
        want: this.wantFor(group),
        floor: this.policy.floor,
        expiresAfterMs: this.policy.expiresAfterMs,
      });
      const account = granted.context.account;
      if (!granted.id || !granted.state || !account) {
        this.refuse(group, roomOf(granted.state));
        return;
      }
      const held: Held = {
        group,
        id: granted.id,
        userId: input.userId,
        orgId: input.orgId,
        billingAccountId: account.id,
        planLeft: granted.plan,
        topUpLeft: granted.topUp,
        grantedAtMs: input.now.getTime(),
        stopAtMs: input.now.getTime() + this.policy.holdMs,
        context: granted.context,
        state: granted.state,
        quotaUsed: granted.quotaUsed,
        planTaken: 0,
        topUpTaken: 0,
        planSettled: 0,
        topUpSettled: 0,
        newestPlanAt: null,
        pending: [],
        next: null,
        takenSinceTick: 0,
        ended: false,
        settling: Promise.resolve(),
        settlingNow: false,
        settleAgain: false,
      };
      this.heldById.set(held.id, held);
      // An admission answered while the grant was on its way may have counted more.
      const seen = this.lastSeen.get(group);
      if (seen) catchUp(held, seen);
      const current = this.held.get(group);
      if (!current) this.held.set(group, held);
      else if (!current.next)
        current.next = held; // takes over when the current one ends
      else this.end(held); // cannot happen (one request at a time per pair); safe
    } catch {
      // Nothing reserved: the pair's calls keep going to group admission, which reports errors.
      this.refuse(group, Number.POSITIVE_INFINITY);
    }
  }

  /**
   * No reservation for the group for one settlement period (see `refusedUntil`), unless an
   * admission finds more room than `room`.
   */
  private refuse(group: string, room: number): void {
    if (this.refusedUntil.size >= 10_000) this.refusedUntil.clear();
    this.refusedUntil.set(group, { untilMs: performance.now() + this.policy.settleEveryMs, room });
  }

  /**
   * Credits to ask for: `policy.want`, doubled (up to `maxWant`) each time the pair spent a whole
   * reservation, halved back when one is given back unspent; a reservation then lasts long
   * enough to be worth its two statements.
   */
  private wantFor(group: string): number {
    return this.wants.get(group) ?? this.policy.want;
  }

  /** Ends a reservation: no more admissions from it; its uses are written and the rest given back. */
  private end(held: Held): void {
    if (held.ended) return;
    held.ended = true;
    const spent = held.planLeft === 0 && held.topUpLeft === 0;
    const want = this.wantFor(held.group);
    const nextWant = spent
      ? Math.min(want * 2, this.policy.maxWant)
      : Math.max(Math.floor(want / 2), this.policy.want);
    if (nextWant === this.policy.want) this.wants.delete(held.group);
    else {
      if (this.wants.size >= 10_000) this.wants.clear();
      this.wants.set(held.group, nextWant);
    }
    if (this.held.get(held.group) === held) {
      const successor = held.next;
      held.next = null;
      if (successor) {
        // Its grant may predate uses admitted from this one: count on from the latest figures.
        const seen = this.lastSeen.get(held.group);
        if (seen) catchUp(successor, seen);
        this.held.set(held.group, successor);
      } else this.held.delete(held.group);
    }
    this.ending.add(held);
    this.settle(held);
  }

  /**
   * Writes what the reservation admitted so far (and ends it in the database once ended). One
   * settlement at a time per reservation; a request made meanwhile runs right after it.
   */
  private settle(held: Held): void {
    if (held.settlingNow) {
      held.settleAgain = true;
      return;
    }
    held.settlingNow = true;
    held.settling = (async () => {
      try {
        do {
          held.settleAgain = false;
          if (!(await this.settleOnce(held))) break; // failed: the next tick tries again
        } while (held.settleAgain);
      } finally {
        held.settlingNow = false;
      }
    })();
  }

  /** One `metering_settle`; false if it failed (the uses are kept, in order). */
  private async settleOnce(held: Held): Promise<boolean> {
    const done = held.ended;
    if (done && !this.ending.has(held)) return true; // already ended in the database
    const batch = held.pending.splice(0);
    if (batch.length === 0 && !done) return true;
    try {
      const ids = await settleReservation(this.db, held, batch, done);
      this.rememberSettled(held, batch, ids);
      for (const use of batch) {
        if (use.source === "plan") held.planSettled += 1;
        else held.topUpSettled += 1;
      }
      if (done) {
        this.ending.delete(held);
        this.heldById.delete(held.id);
      }
      return true;
    } catch {
      // The reservation expires in the database meanwhile; its uses still count when written.
      held.pending.unshift(...batch);
      return false;
    }
  }

  private tick(): void {
    for (const held of [...this.held.values()]) {
      // Idle since the last tick: give the credits back now rather than at the hold's end.
      if (held.takenSinceTick === 0) this.end(held);
      else {
        held.takenSinceTick = 0;
        if (held.pending.length > 0) this.settle(held);
      }
    }
    // Ended reservations whose last settlement failed: try again.
    for (const held of this.ending) this.settle(held);
  }
}

/**
 * Brings a reservation's figures up to those group admission answered for the same pair: they
 * count every use written when that statement ran, including this reservation's settled ones.
 */
function catchUp(held: Held, seen: CreditAdmitResult): void {
  const state = seen.state;
  if (!state) return;
  held.state = {
    ...held.state,
    used: Math.max(held.state.used, state.used - held.planSettled),
    topUpCredits: Math.min(held.state.topUpCredits, state.topUpCredits + held.topUpSettled),
    newestUseAt: later(held.state.newestUseAt, state.newestUseAt),
  };
  held.quotaUsed = Math.max(held.quotaUsed, seen.quotaUsed - held.planSettled - held.topUpSettled);
}

/**
 * Credits a window shows left to use: the plan's unused ones and the top-up balance (before what
 * reservations hold, which the database subtracts when it grants).
 */
function roomOf(state: CreditWindowState | null): number {
  return state ? Math.max(state.limit - state.used, 0) + state.topUpCredits : 0;
}

/** Where `sequence` is in a list ordered by it, or -1. */
function indexOfSequence(
  list: readonly { sequence: number }[] | readonly number[],
  sequence: number,
) {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const item = list[mid];
    const at = typeof item === "number" ? item : (item?.sequence ?? 0);
    if (at === sequence) return mid;
    if (at < sequence) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

const later = (a: Date | null, b: Date | null) => (a && b ? (a > b ? a : b) : (a ?? b));

/** The production credit store: group admission, with reservations for busy pairs. */
export function reservingCreditStore(db: DbOrTx, policy?: ReservationPolicy): CreditStore {
  return new ReservingCreditStore(db, policy);
}
