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
   * Each record's weight for the evidence a customer has shown, by that evidence (`evidenceKey`):
   * many receivables show the same (one payment on the due date, say) and each weighing costs a
   * pass over every record (about 8,000 on the bench organisation, for each of ~300 receivables
   * per scenario).
   */
  weighed: Map<string, Float64Array | null>;
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
    weighed: new Map(),
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
  const open = [...((contactId && model.openByContact.get(contactId)) || [])];
  const self = open.indexOf(overdueDays);
  if (self >= 0) open.splice(self, 1);
  // A customer who has shown nothing keeps the organisation's pool (see above).
  if (paid.length === 0 && unpaidOwn === 0 && open.length === 0) return null;

  const key = evidenceKey(contactId, paid, unpaidOwn, open);
  let weightOf = recs.weighed.get(key);
  if (weightOf === undefined) {
    weightOf = weigh(recs, contactId, paid, unpaidOwn, open);
    recs.weighed.set(key, weightOf);
  }
  if (weightOf === null) return null;

  // The pooled values later than this invoice already is, but those of records weighing nothing.
  const from = lowerBound(recs.pooled, overdueDays + 1);
  const weightAt = (i: number) =>
    (weightOf[recs.pooledRecord[i] ?? 0] ?? 0) * (recs.pooledMass[i] ?? 0);
  let count = 0;
  for (let i = from; i < recs.pooled.length; i++) if (weightAt(i) !== 0) count++;
  if (count === 0) return null;
  const values = new Int32Array(count);
  const cumulative = new Float64Array(count + 1);
  for (let i = from, k = 0; i < recs.pooled.length; i++) {
    const w = weightAt(i);
    if (w === 0) continue;
    values[k] = recs.pooled[i] ?? 0;
    cumulative[k + 1] = (cumulative[k] ?? 0) + w;
    k++;
  }
  let unpaidWeight = 0;
  let unpaidCount = 0;
  recs.list.forEach((r, k) => {
    const u = r.unpaid.length - lowerBound(r.unpaid, overdueDays);
    const w = weightOf[k] ?? 0;
    if (u === 0 || w === 0) return;
    unpaidWeight += (w * r.unpaidMass * u) / r.unpaid.length;
    unpaidCount += u;
  });
  return {
    values,
    unpaid: unpaidCount,
    own: false,
    similar: true,
    weights: {
      cumulative,
      unpaid: unpaidCount > 0 ? unpaidWeight / unpaidCount : 0,
    },
    offset: 0,
  };
}

/**
 * What a customer has shown, as a key: the weeks of their payments and their open invoices' days
 * overdue in the order they are weighed (the log-likelihood is summed in that order), the count
 * never paid, and the customer when they have a record of their own (left out of the mixture).
 */
function evidenceKey(
  contactId: string | null,
  paid: Int32Array,
  unpaidOwn: number,
  open: readonly number[],
): string {
  // The same rule as records(): MIN_OWN_PAYMENTS invoices paid or never paid.
  const own = contactId !== null && paid.length + unpaidOwn >= MIN_OWN_PAYMENTS ? contactId : "";
  return `${own}|${Array.from(paid, week).join(",")}|${unpaidOwn}|${open.join(",")}`;
}

/**
 * Each record's weight (index into recs.list): how likely it makes the evidence, times its
 * invoices, relative to the likeliest; null when no record but the customer's own could have.
 */
function weigh(
  recs: Records,
  contactId: string | null,
  paid: Int32Array,
  unpaidOwn: number,
  open: readonly number[],
): Float64Array | null {
  // The smoothing's outcomes: the weeks any record's payments fell in, and never paid.
  const weeks = recs.weeks;
  const pseudo = 1 / (weeks.length + 1);
  const logLik = recs.list.map((r) => {
    if (r.id === contactId) return Number.NEGATIVE_INFINITY;
    const c = r.cumulative;
    let ll = 0;
    for (const v of paid) {
      const q =
        (c[lowerBound(r.values, week(v) * 7 + 7)] ?? 0) -
        (c[lowerBound(r.values, week(v) * 7)] ?? 0);
      ll += Math.log((r.n * q + pseudo) / (r.n + 1));
    }
    if (unpaidOwn > 0) ll += unpaidOwn * Math.log((r.n * r.unpaidMass + pseudo) / (r.n + 1));
    for (const x of open) {
      // Not paid by x days late: a later payment, or never.
      const q = r.unpaidMass + (c[r.values.length] ?? 0) - (c[lowerBound(r.values, x + 1)] ?? 0);
      const laterWeeks = weeks.length - lowerBound(weeks, week(x) + 1) + 1;
      ll += Math.log((r.n * q + laterWeeks * pseudo) / (r.n + 1));
    }
    return ll;
  });
  const top = logLik.reduce((a, b) => Math.max(a, b), Number.NEGATIVE_INFINITY);
  if (!Number.isFinite(top)) return null;
  return Float64Array.from(recs.list, (r, k) => r.n * Math.exp((logLik[k] ?? top) - top));
}
