import {
  type CollectionModel,
  type LatenessSpread,
  lowerBound,
  MIN_OWN_PAYMENTS,
} from "./collection.ts";

/**
 * A receivable whose customer's own record does not decide (fewer than MIN_OWN_PAYMENTS invoices
 * paid or never paid, or none ever this late) is judged by the customers who pay like the
 * customer has shown (docs/forecast.md, "Customers like this one"), not by the organisation's
 * pool of every payment. What a customer has shown: their past payments (each in the week,
 * relative to its due date, it came in; their last 12, as collection.ts keeps), their invoices
 * never paid, and their other invoices still open (each not paid by as late as it now is). Each
 * customer of the organisation with a record (MIN_OWN_PAYMENTS invoices paid or never paid) is
 * weighed by how likely their record makes that evidence, times their number of invoices (Bayes:
 * a receivable of unknown habit is as likely any customer's as their share of the invoices), and
 * the receivable is spread over the mixture of those records: each of their payments later than
 * this invoice already is weighs their customer's weight times its share of the record (their
 * Kaplan–Meier weights when they have invoices open), and so does each invoice of theirs never
 * paid (a share that never arrives). A customer who has shown nothing (no payment, no invoice
 * never paid, nothing else open) has no evidence to weigh the records by: null, and the
 * organisation's pool of every payment spreads it as before (the records pooled instead, each
 * customer's last 12, were measured: the demo's 4-week bias rose past half its MAE).
 *
 * A record's chance of an outcome is smoothed by one pseudo-invoice spread evenly over the weeks
 * any record's payments fell in and never paid, so no customer is ruled out by one payment their
 * record has not seen.
 */

/** A customer's record: lateness values (sorted) and never-paid invoices, as probabilities. */
interface CustomerRecord {
  id: string;
  values: Int32Array;
  /** cumulative[i]: the probability of the record's first i values (sorted order). */
  cumulative: Float64Array;
  /** The probability of never paid, and the never-paid invoices' days overdue (sorted). */
  unpaidMass: number;
  unpaid: Int32Array;
  /** Observations: values and never-paid invoices. */
  n: number;
}

/** The records, their values pooled (sorted), and the weeks any payment fell in. */
interface Records {
  list: CustomerRecord[];
  /** Every record's values, sorted, with the record (index into list) and its probability. */
  pooled: Int32Array;
  pooledRecord: Int32Array;
  pooledMass: Float64Array;
  weeks: Int32Array;
  /**
   * Each record's log-likelihood of what a customer has shown (every open invoice of theirs
   * counted), and the mixture for one receivable of theirs, by that evidence: weighing costs a
   * pass over every record and mixing one over every payment (about 8,000 and 58,000 on the bench
   * organisation, for each of ~300 receivables in each of three scenarios).
   */
  likelihoods: Map<string, Float64Array>;
  mixtures: Map<string, Mixture | null>;
  /**
   * Each record's log-likelihood term (indexed like `list`) of one outcome: a payment in week w
   * (`paidTerms`, by w) or an invoice still open x days overdue (`openTerms`, by x). Every
   * customer weighed shows outcomes from the same few weeks and days, so each column is computed
   * once and a customer's log-likelihood is a sum of columns
   * (docs/adr/0011-books-documents-made-once-per-rows-read.md).
   */
  paidTerms: Map<number, Float64Array>;
  openTerms: Map<number, Float64Array>;
}

const week = (days: number) => Math.floor(days / 7);

/** By content, not id: ids are assigned at import, and the same books must forecast the same. */
function byContent(a: CustomerRecord, b: CustomerRecord): number {
  if (a.n !== b.n) return a.n - b.n;
  const arrays: [ArrayLike<number>, ArrayLike<number>][] = [
    [a.values, b.values],
    [a.unpaid, b.unpaid],
    [a.cumulative, b.cumulative],
  ];
  for (const [x, y] of arrays) {
    if (x.length !== y.length) return x.length - y.length;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return 0;
}

const cache = new WeakMap<CollectionModel, Records>();

/**
 * At most this many records are mixed: an organisation with more customers with a record is
 * represented by an even sample of them in content order (every k-th, so their payment habits
 * keep their mix; docs/adr/0009-similar-customers-mixture-kept-and-sampled.md). Each receivable weighs every record and mixes their payments, so the cost
 * grows with receivables × records: with all ~8,000 records of the 100,000-invoice bench
 * organisation a new date's three scenarios took ~10 s of CPU instead of 0.24 s. A business of
 * up to 1,200 invoices (each record needs three) is never sampled: the family benches are exact.
 */
export const MAX_RECORDS = 400;

function records(model: CollectionModel): Records {
  const hit = cache.get(model);
  if (hit) return hit;
  const list: CustomerRecord[] = [];
  for (const id of new Set([...model.byContact.keys(), ...model.unpaidByContact.keys()])) {
    const values = model.byContact.get(id) ?? new Int32Array(0);
    const unpaid = model.unpaidByContact.get(id) ?? new Int32Array(0);
    const n = values.length + unpaid.length;
    if (n < MIN_OWN_PAYMENTS) continue;
    const w = model.weightsByContact.get(id);
    const each = w ? w.unpaid : 1;
    const total = (w ? (w.cumulative[values.length] ?? 0) : values.length) + each * unpaid.length;
    const cumulative = new Float64Array(values.length + 1);
    for (let i = 0; i < values.length; i++)
      cumulative[i + 1] = (w ? (w.cumulative[i + 1] ?? 0) : i + 1) / total;
    list.push({ id, values, cumulative, unpaidMass: (each * unpaid.length) / total, unpaid, n });
  }
  list.sort(byContent);
  if (list.length > MAX_RECORDS) {
    const every = Math.ceil(list.length / MAX_RECORDS);
    const sample = list.filter((_, i) => i % every === 0);
    list.length = 0;
    list.push(...sample);
  }
  const entries: { v: number; r: number; m: number }[] = [];
  const weeks = new Set<number>();
  list.forEach((rec, r) => {
    rec.values.forEach((v, i) => {
      entries.push({ v, r, m: (rec.cumulative[i + 1] ?? 0) - (rec.cumulative[i] ?? 0) });
      weeks.add(week(v));
    });
  });
  entries.sort((a, b) => a.v - b.v || a.r - b.r);
  const built: Records = {
    list,
    pooled: Int32Array.from(entries, (e) => e.v),
    pooledRecord: Int32Array.from(entries, (e) => e.r),
    pooledMass: Float64Array.from(entries, (e) => e.m),
    weeks: Int32Array.from(weeks).sort(),
    likelihoods: new Map(),
    mixtures: new Map(),
    paidTerms: new Map(),
    openTerms: new Map(),
  };
  cache.set(model, built);
  return built;
}

/**
 * The spread of a receivable `overdueDays` past due by the customers like its customer (the
 * customer's own record left out of the mixture), or null when the customer has shown nothing or
 * no other customer has a record with a payment or never-paid invoice that late.
 */
export function similarCustomersSpread(
  model: CollectionModel,
  contactId: string | null,
  overdueDays: number,
): LatenessSpread | null {
  const recs = records(model);
  const paid = (contactId && model.byContact.get(contactId)) || new Int32Array(0);
  const unpaidOwn = (contactId && model.unpaidByContact.get(contactId)?.length) || 0;
  // The customer's other invoices still open: this one's "not paid by now" is what the spread is
  // conditioned on (values later than overdueDays), so it is not evidence twice.
  const open: ArrayLike<number> = (contactId && model.openByContact.get(contactId)) || [];
  const self = Array.prototype.includes.call(open, overdueDays) ? overdueDays : null;
  // A customer who has shown nothing keeps the organisation's pool (see above).
  if (paid.length === 0 && unpaidOwn === 0 && open.length === (self === null ? 0 : 1)) return null;

  const mixture = mixtureFor(recs, contactId, paid, unpaidOwn, open, self);
  if (mixture === null) return null;

  // The mixture's days later than this invoice already is; the counts are the payments on them.
  const from = lowerBound(mixture.days, overdueDays + 1);
  const counted = (mixture.counts[mixture.days.length] ?? 0) - (mixture.counts[from] ?? 0);
  if (counted === 0) return null;
  // The weighed records' invoices never paid at least this overdue.
  const u = lowerBound(mixture.unpaidDays, overdueDays);
  const unpaidCount = mixture.unpaidDays.length - u;
  const unpaidWeight = mixture.unpaidAfter[u] ?? 0;
  return {
    values: mixture.days.subarray(from),
    unpaid: unpaidCount,
    own: false,
    similar: true,
    weights: {
      cumulative: mixture.cumulative,
      unpaid: unpaidCount > 0 ? unpaidWeight / unpaidCount : 0,
    },
    counts: mixture.counts,
    offset: from,
  };
}

/** The records mixed for one receivable's evidence. */
interface Mixture {
  /**
   * The weighed records' invoices never paid, by days overdue (sorted), and unpaidAfter[i] the
   * mixture's weight of those from i on.
   */
  unpaidDays: Int32Array;
  unpaidAfter: Float64Array;
  /**
   * The days (lateness) any weighed payment fell on, sorted; cumulative[i] the mixture's weight
   * of the first i days and counts[i] their payments (the notes count invoices).
   */
  days: Int32Array;
  cumulative: Float64Array;
  counts: Int32Array;
}

/**
 * The mixture for a customer's evidence (`open`: every invoice of theirs still open), `self`
 * (days overdue) the receivable's own open invoice, left out of it. Kept per evidence on the records: a receivable is spread once per scenario, and
 * its customer's other receivables share all of the evidence but their own invoice. Null when no
 * record but the customer's own could have shown it.
 */
function mixtureFor(
  recs: Records,
  contactId: string | null,
  paid: Int32Array,
  unpaidOwn: number,
  open: ArrayLike<number>,
  self: number | null,
): Mixture | null {
  // The same rule as records(): MIN_OWN_PAYMENTS invoices paid or never paid.
  const own = contactId !== null && paid.length + unpaidOwn >= MIN_OWN_PAYMENTS ? contactId : "";
  const shown = `${own}|${Array.from(paid, week).join(",")}|${unpaidOwn}|${Array.from(open).join(",")}`;
  const key = `${shown}#${self ?? ""}`;
  const hit = recs.mixtures.get(key);
  if (hit !== undefined) return hit;
  let all = recs.likelihoods.get(shown);
  if (all === undefined) {
    // Every open invoice of the customer counts here; each receivable takes its own out.
    all = logLikelihoods(recs, own, paid, unpaidOwn, open);
    recs.likelihoods.set(shown, all);
  }
  const selfTerms = self === null ? null : openTerms(recs, self);
  const logLik = selfTerms === null ? all : all.map((ll, k) => ll - (selfTerms[k] ?? 0));
  const top = logLik.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
  let mixture: Mixture | null = null;
  if (Number.isFinite(top)) {
    const weightOf = Float64Array.from(
      recs.list,
      (r, k) => r.n * Math.exp((logLik[k] ?? top) - top),
    );
    mixture = mix(recs, weightOf);
  }
  recs.mixtures.set(key, mixture);
  return mixture;
}

/** The weighed records' payments, by day. */
function mix(recs: Records, weightOf: Float64Array): Mixture | null {
  const days: number[] = [];
  const cumulative: number[] = [0];
  const counts: number[] = [0];
  for (let i = 0; i < recs.pooled.length; i++) {
    const w = (weightOf[recs.pooledRecord[i] ?? 0] ?? 0) * (recs.pooledMass[i] ?? 0);
    if (w === 0) continue;
    const day = recs.pooled[i] ?? 0;
    const last = days.length - 1;
    if (days[last] === day) {
      cumulative[last + 1] = (cumulative[last + 1] ?? 0) + w;
      counts[last + 1] = (counts[last + 1] ?? 0) + 1;
    } else {
      days.push(day);
      cumulative.push((cumulative[last + 1] ?? 0) + w);
      counts.push((counts[last + 1] ?? 0) + 1);
    }
  }
  if (days.length === 0) return null;
  const unpaid: { day: number; w: number }[] = [];
  recs.list.forEach((r, k) => {
    const w = weightOf[k] ?? 0;
    if (w === 0) return;
    for (const day of r.unpaid) unpaid.push({ day, w: (w * r.unpaidMass) / r.unpaid.length });
  });
  unpaid.sort((a, b) => a.day - b.day || a.w - b.w);
  const unpaidAfter = new Float64Array(unpaid.length + 1);
  for (let i = unpaid.length - 1; i >= 0; i--)
    unpaidAfter[i] = (unpaidAfter[i + 1] ?? 0) + (unpaid[i]?.w ?? 0);
  return {
    unpaidDays: Int32Array.from(unpaid, (e) => e.day),
    unpaidAfter,
    days: Int32Array.from(days),
    cumulative: Float64Array.from(cumulative),
    counts: Int32Array.from(counts),
  };
}

/** The smoothing's outcomes: the weeks any record's payments fell in, and never paid. */
const pseudoOf = (recs: Records) => 1 / (recs.weeks.length + 1);

/** Each record's log-likelihood of an invoice of the customer still open `x` days overdue. */
function openTerms(recs: Records, x: number): Float64Array {
  const hit = recs.openTerms.get(x);
  if (hit) return hit;
  const pseudo = pseudoOf(recs);
  // Not paid by x days late: a later payment, or never.
  const laterWeeks = recs.weeks.length - lowerBound(recs.weeks, week(x) + 1) + 1;
  const terms = Float64Array.from(recs.list, (r) => {
    const c = r.cumulative;
    const q = r.unpaidMass + (c[r.values.length] ?? 0) - (c[lowerBound(r.values, x + 1)] ?? 0);
    return Math.log((r.n * q + laterWeeks * pseudo) / (r.n + 1));
  });
  recs.openTerms.set(x, terms);
  return terms;
}

/** Each record's log-likelihood of a payment of the customer in week `w` of lateness. */
function paidTerms(recs: Records, w: number): Float64Array {
  const hit = recs.paidTerms.get(w);
  if (hit) return hit;
  const pseudo = pseudoOf(recs);
  const terms = Float64Array.from(recs.list, (r) => {
    const c = r.cumulative;
    const q = (c[lowerBound(r.values, w * 7 + 7)] ?? 0) - (c[lowerBound(r.values, w * 7)] ?? 0);
    return Math.log((r.n * q + pseudo) / (r.n + 1));
  });
  recs.paidTerms.set(w, terms);
  return terms;
}

/**
 * Each record's log-likelihood of the evidence (−∞ for the customer's own record, `own`: it is
 * not a customer like them): per record, the terms of the payments, the invoices never paid and
 * those still open, summed in that order.
 */
function logLikelihoods(
  recs: Records,
  own: string,
  paid: Int32Array,
  unpaidOwn: number,
  open: ArrayLike<number>,
): Float64Array {
  const pseudo = pseudoOf(recs);
  const ll = new Float64Array(recs.list.length);
  const add = (terms: Float64Array) => {
    for (let k = 0; k < ll.length; k++) ll[k] = (ll[k] ?? 0) + (terms[k] ?? 0);
  };
  for (const v of paid) add(paidTerms(recs, week(v)));
  if (unpaidOwn > 0)
    add(
      Float64Array.from(
        recs.list,
        (r) => unpaidOwn * Math.log((r.n * r.unpaidMass + pseudo) / (r.n + 1)),
      ),
    );
  for (let i = 0; i < open.length; i++) add(openTerms(recs, open[i] ?? 0));
  recs.list.forEach((r, k) => {
    if (r.id === own) ll[k] = Number.NEGATIVE_INFINITY;
  });
  return ll;
}
