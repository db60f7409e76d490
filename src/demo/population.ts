import { type BusinessProfile, businessProfile, DEFAULT_BUSINESS } from "./business.ts";
import { addMonths, dayFromYmd, ymdOf } from "./calendar.ts";
import {
  FIRST_NAMES,
  LAST_NAMES,
  NAME_ADJECTIVES,
  NAME_NOUNS,
  NAME_SUFFIXES,
  PRODUCTS,
  type Product,
} from "./catalog.ts";
import type { Prng } from "./prng.ts";

/** How often a customer orders. */
export const CADENCES = [
  "weekly",
  "fortnightly",
  "monthly",
  "quarterly",
  "annual",
  "irregular",
] as const;
/** One ordering cadence. */
export type Cadence = (typeof CADENCES)[number];

/** How a customer pays. */
export const HABITS = ["on_time", "a_bit_late", "chronically_late", "bad_debt"] as const;
/** One payment habit. */
export type Habit = (typeof HABITS)[number];

/** The ledger's payment terms: n days after the invoice, or day n of the following month. */
export interface Terms {
  type: "DAYSAFTERBILLDATE" | "OFFOLLOWINGMONTH";
  day: number;
}

/** The due date of an invoice issued on `issue` under `terms`. */
export function dueDate(terms: Terms, issue: number): number {
  if (terms.type === "DAYSAFTERBILLDATE") return issue + terms.day;
  return addMonths(dayFromYmd(ymdOf(issue).y, ymdOf(issue).m, 1), 1, terms.day);
}

/** A customer's profile: who they are, how often they order, how they pay. */
export interface Customer {
  idx: number;
  id: string;
  name: string;
  firstName: string;
  lastName: string;
  email: string;
  accountNumber: string;
  cadence: Cadence;
  habit: Habit;
  currency: string;
  lat: "Exclusive" | "Inclusive";
  /** Standing discount in hundredths of a percent (0 = none). */
  discH: number;
  terms: Terms;
  /** Typical invoice size, ex-tax, in the customer's currency (cents). */
  medianCents: number;
  products: Product[];
  /** Sends a purchase-order reference that goes on the invoice's Reference. */
  poRef: boolean;
  /** First day as a customer (before the window for long-standing customers). */
  startDay: number;
  /** Last day they order (today unless they churned). */
  endDay: number;
  /** Bad debtors stop paying from this day. */
  troubleDay?: number | undefined;
  /** Day the contact record was last updated. */
  updatedDay: number;
  invoiceCount: number;
}

/** Share of customers per cadence and per payment habit (largest-remainder allocation). */
const CADENCE_WEIGHTS: Record<Cadence, number> = {
  weekly: 0.03,
  fortnightly: 0.05,
  monthly: 0.24,
  quarterly: 0.24,
  annual: 0.16,
  irregular: 0.28,
};

const HABIT_WEIGHTS: Record<Habit, number> = {
  on_time: 0.46,
  a_bit_late: 0.3,
  chronically_late: 0.2,
  bad_debt: 0.04,
};

/** Median invoice (ex GST, dollars) per cadence: rarer orders are larger. */
const MEDIAN_DOLLARS: Record<Cadence, number> = {
  weekly: 380,
  fortnightly: 650,
  monthly: 1_250,
  quarterly: 2_600,
  annual: 6_500,
  irregular: 1_500,
};

/**
 * Exactly `n` labels in proportion to `weights` (largest remainder), shuffled. Exact counts
 * guarantee that every cadence and habit is present at the default size, whatever the seed.
 */
function allocate<T extends string>(prng: Prng, n: number, weights: Record<T, number>): T[] {
  const keys = Object.keys(weights) as T[];
  const raw = keys.map((k) => weights[k] * n);
  const counts = raw.map(Math.floor);
  let rest = n - counts.reduce((a, b) => a + b, 0);
  const order = keys
    .map((_, i) => i)
    .sort((a, b) => (raw[b] ?? 0) - (counts[b] ?? 0) - ((raw[a] ?? 0) - (counts[a] ?? 0)));
  for (const i of order) {
    if (rest <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
    rest -= 1;
  }
  const out: T[] = [];
  keys.forEach((k, i) => {
    for (let j = 0; j < (counts[i] ?? 0); j++) out.push(k);
  });
  return prng.shuffle(out);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** Unique business names: the ledger refuses two contacts with one name. */
export class NameBook {
  private readonly used = new Set<string>();

  constructor(private readonly prng: Prng) {}

  reserve(name: string): void {
    this.used.add(name.toLowerCase());
  }

  business(): string {
    for (let attempt = 0; attempt < 30; attempt++) {
      const suffix = this.prng.pick(NAME_SUFFIXES);
      const base = `${this.prng.pick(NAME_ADJECTIVES)} ${this.prng.pick(NAME_NOUNS)}`;
      const name = suffix ? `${base} ${suffix}` : base;
      if (!this.used.has(name.toLowerCase())) {
        this.used.add(name.toLowerCase());
        return name;
      }
    }
    // Large populations exhaust the combinations: number the branches.
    for (let n = 2; ; n++) {
      const name = `${this.prng.pick(NAME_ADJECTIVES)} ${this.prng.pick(NAME_NOUNS)} ${n}`;
      if (!this.used.has(name.toLowerCase())) {
        this.used.add(name.toLowerCase());
        return name;
      }
    }
  }
}

function productsFor(prng: Prng, cadence: Cadence): Product[] {
  const of = (kind: Product["kind"]) => PRODUCTS.filter((p) => p.kind === kind);
  const some = (list: Product[], k: number) => prng.shuffle([...list]).slice(0, k);
  switch (cadence) {
    case "weekly":
    case "fortnightly":
      return [...some(of("coffee"), prng.int(1, 2)), ...some(of("consumable"), prng.int(1, 2))];
    case "monthly":
      return [
        ...some(of("coffee"), prng.int(1, 2)),
        ...some(of("consumable"), prng.int(0, 1)),
        ...(prng.chance(0.3) ? some(of("service"), 1) : []),
      ];
    case "quarterly":
      return prng.chance(0.5)
        ? [...PRODUCTS.filter((p) => p.code === "PLAN-QTR"), ...some(of("coffee"), 1)]
        : [...some(of("service"), 1), ...some(of("coffee"), 1), ...some(of("equipment"), 1)];
    case "annual":
      return prng.chance(0.7)
        ? PRODUCTS.filter((p) => p.code === "PLAN-ANNUAL")
        : [...some(of("equipment"), 1), ...some(of("service"), 1)];
    case "irregular":
      return some(
        PRODUCTS.filter((p) => p.kind !== "plan"),
        prng.int(2, 3),
      );
  }
}

/** Customers for a population of `n`, acquired over the window [start, today]. */
export function makeCustomers(
  prng: Prng,
  names: NameBook,
  n: number,
  start: number,
  today: number,
  business: BusinessProfile = businessProfile(DEFAULT_BUSINESS),
): Customer[] {
  const cadences = allocate(prng, n, business.cadenceWeights ?? CADENCE_WEIGHTS);
  const habits = allocate(prng, n, business.habitWeights ?? HABIT_WEIGHTS);
  // A few customers abroad, invoiced in their currency: at least one USD and one NZD.
  const foreign = n >= 2 ? Math.max(2, Math.round(n * 0.03)) : 0;
  const span = today - start;
  const customers: Customer[] = [];
  for (let i = 0; i < n; i++) {
    const cadence = cadences[i] ?? "monthly";
    const habit = habits[i] ?? "on_time";
    const name = names.business();
    const firstName = prng.pick(FIRST_NAMES);
    const lastName = prng.pick(LAST_NAMES);
    const currency = i < foreign ? (i % 2 === 0 ? "USD" : "NZD") : "AUD";
    // Four in ten were already customers when the window opens; the rest arrive over it,
    // more of them lately (a growing business), so acquisition cohorts have different sizes.
    const longStanding = prng.chance(0.4);
    const startDay = longStanding
      ? start - prng.int(30, 900)
      : start + Math.floor(Math.sqrt(prng.next()) * (span - 10));
    let endDay = today;
    if (prng.chance(0.2)) {
      const earliest = Math.max(startDay, start) + 45;
      if (earliest < today - 30) endDay = prng.int(earliest, today - 30);
    }
    let troubleDay: number | undefined;
    if (habit === "bad_debt") {
      // They stop paying somewhere in the window and stop ordering a couple of months later.
      const from = Math.max(startDay, start) + 30;
      troubleDay = from < today - 20 ? prng.int(from, today - 20) : today - 20;
      endDay = Math.min(today, troubleDay + prng.int(40, 110));
    }
    const median = MEDIAN_DOLLARS[cadence] * Math.exp(0.45 * prng.normal());
    const terms: Terms = prng.weighted<Terms>([
      [{ type: "DAYSAFTERBILLDATE", day: 7 }, 0.15],
      [{ type: "DAYSAFTERBILLDATE", day: 14 }, 0.35],
      [{ type: "DAYSAFTERBILLDATE", day: 30 }, 0.35],
      [{ type: "OFFOLLOWINGMONTH", day: 20 }, 0.15],
    ]);
    customers.push({
      idx: i,
      id: prng.uuid(),
      name,
      firstName,
      lastName,
      email: `accounts@${slug(name).slice(0, 40)}.example.com`,
      accountNumber: `C${String(i + 1).padStart(5, "0")}`,
      cadence,
      habit,
      currency,
      lat: currency === "AUD" && prng.chance(0.1) ? "Inclusive" : "Exclusive",
      discH: prng.chance(0.15) ? prng.pick([500, 1000, 1250, 1500]) : 0,
      terms,
      medianCents: Math.max(2_000, Math.round(median * 100 * business.invoiceScale)),
      products: productsFor(prng, cadence),
      poRef: prng.chance(0.3),
      startDay,
      endDay,
      troubleDay,
      updatedDay: Math.max(startDay, start - 400),
      invoiceCount: 0,
    });
  }
  return customers;
}
