import { type Cents, centsToDecimal, toCents } from "./cents.ts";
import type { ForecastWeek } from "./types.ts";

/**
 * Prediction intervals for weekly closing cash, from the organisation's own backtest residuals
 * (e = forecast − actual of the served BASE engine, per horizon, in origin order): normalised
 * split-conformal, pooled over horizons.
 *
 * At horizon h the errors known so far give a centre c (their median: the engine's bias there)
 * and a scale w (their mean absolute deviation from c). Every error already known, at every
 * horizon k, is turned into a score |e − c| ÷ w with the c and w its own horizon had at its own
 * origin (only errors known then). The band of week h is c ± q·w, q the conformal
 * ⌈0.8(n + 1)⌉-th smallest of the n scores. Pooling horizons gives hundreds of scores instead of
 * a dozen, and the newest of them (1-week errors known last week) say how far off the engine
 * has lately been against its own spread. docs/forecast.md, "Prediction intervals", has the
 * figures that chose this over the per-horizon ranks it replaced.
 */

/** The interval's nominal coverage. */
export const INTERVAL_LEVEL = 0.8;
/** How `/forecast` names the method (`closingInterval.method`). */
export const INTERVAL_METHOD =
  "normalised split-conformal on backtest residuals, pooled over horizons" as const;
/** Fewer own residuals than this at a horizon: no band there ("insufficient history"). */
export const MIN_RESIDUALS = 6;
/** Fewer scores than this over all horizons: no band anywhere. */
export const MIN_SCORES = 12;

/** Residuals per horizon (1–13), in origin order: index j is the j-th origin replayed. */
type ResidualTable = Readonly<Record<number, readonly Cents[]>>;

export interface IntervalBounds {
  /** Error quantiles (forecast − actual), cents; closing − upper … closing − lower. */
  lower: Cents;
  upper: Cents;
}

/** Centre and scale of one horizon's errors. */
interface Base {
  centre: number;
  scale: number;
}

function median(sorted: readonly number[]): number {
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  return n % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median and mean absolute deviation from it; null with too few errors or no spread. */
function baseOf(errors: readonly Cents[]): Base | null {
  if (errors.length < MIN_RESIDUALS) return null;
  const centre = median([...errors].sort((a, b) => a - b));
  const scale = errors.reduce((s, e) => s + Math.abs(e - centre), 0) / errors.length;
  return scale > 0 ? { centre, scale } : null;
}

/**
 * How many of horizon k's residuals are known at origin `at`: origin j's week k ends the Sunday
 * before origin j + k, so j is known when j + k ≤ at. `at` = Infinity: all of them (today).
 */
const knownCount = (table: ResidualTable, k: number, at: number) =>
  Math.min((table[k] ?? []).length, Math.max(0, at - k + 1));

/**
 * The intervals' calibration over one residual table: the base of every (origin, horizon) from
 * the errors known at that origin, computed once, so intervals at every origin are cheap.
 */
export class IntervalCalibration {
  private readonly bases = new Map<number, (Base | null)[]>();
  private readonly horizons: number[];

  constructor(private readonly table: ResidualTable) {
    this.horizons = Object.keys(table)
      .map(Number)
      .sort((a, b) => a - b);
    for (const k of this.horizons) {
      const errors = table[k] ?? [];
      // bases[k][j]: from the errors of horizon k known at origin j.
      this.bases.set(
        k,
        errors.map((_, j) => baseOf(errors.slice(0, knownCount(table, k, j)))),
      );
    }
  }

  /** Horizon k's base at origin `at` (Infinity: with every stored error). */
  private baseAt(k: number, at: number): Base | null {
    const errors = this.table[k] ?? [];
    return at < errors.length
      ? (this.bases.get(k)?.[at] ?? null)
      : baseOf(errors.slice(0, knownCount(this.table, k, at)));
  }

  /**
   * The error bounds of horizon h's band at origin `at`, from errors known then; null when the
   * horizon has fewer than MIN_RESIDUALS errors, no spread, or fewer than MIN_SCORES scores.
   */
  bounds(h: number, at = Number.POSITIVE_INFINITY, level = INTERVAL_LEVEL): IntervalBounds | null {
    const base = this.baseAt(h, at);
    if (!base) return null;
    const q = this.scoreQuantile(at, level);
    if (q === null) return null;
    return {
      lower: Math.round(base.centre - q * base.scale) as Cents,
      upper: Math.round(base.centre + q * base.scale) as Cents,
    };
  }

  /** Every score with the origin from which it is known (origin j's week k: from j + k on). */
  private scores(): { knownFrom: number; score: number }[] {
    if (this.allScores) return this.allScores;
    const out: { knownFrom: number; score: number }[] = [];
    for (const k of this.horizons) {
      const errors = this.table[k] ?? [];
      (this.bases.get(k) ?? []).forEach((b, j) => {
        if (b)
          out.push({
            knownFrom: j + k,
            score: Math.abs((errors[j] as number) - b.centre) / b.scale,
          });
      });
    }
    this.allScores = out;
    return out;
  }
  private allScores: { knownFrom: number; score: number }[] | null = null;
  private readonly quantiles = new Map<string, number | null>();

  /** The conformal `level` quantile of the scores known at origin `at`; null with too few. */
  private scoreQuantile(at: number, level: number): number | null {
    const key = `${at}|${level}`;
    const cached = this.quantiles.get(key);
    if (cached !== undefined) return cached;
    const known = this.scores()
      .filter((s) => s.knownFrom <= at)
      .map((s) => s.score)
      .sort((a, b) => a - b);
    const n = known.length;
    // The conformal rank; the ε keeps float noise (0.8 is not exact) from moving it by one.
    const q =
      n < MIN_SCORES ? null : (known[Math.min(n, Math.ceil(level * (n + 1) - 1e-9)) - 1] as number);
    this.quantiles.set(key, q);
    return q;
  }

  /**
   * Coverage as it would have been lived at horizon h: each error, in origin order, judged by
   * the band built at its origin from the errors known then. Returns how many were judged and
   * the share inside.
   */
  sequentialCoverage(h: number): { judged: number; coverage: number | null } {
    let judged = 0;
    let inside = 0;
    const errors = this.table[h] ?? [];
    for (let i = 0; i < errors.length; i++) {
      const b = this.bounds(h, i);
      if (!b) continue;
      judged += 1;
      const e = errors[i] as Cents;
      if (e >= b.lower && e <= b.upper) inside += 1;
    }
    return { judged, coverage: judged === 0 ? null : inside / judged };
  }
}

/** A stored residual table (decimal strings, as the backtest keeps them) in cents. */
function residualTable(residuals: Record<number, readonly string[]>): ResidualTable {
  return Object.fromEntries(
    Object.entries(residuals).map(([h, errs]) => [Number(h), errs.map(toCents)]),
  );
}

/** What `/forecast` says about the band. */
export interface ClosingInterval {
  level: number;
  /** Older snapshots carry the per-horizon method they were banded with. */
  method: typeof INTERVAL_METHOD | "split-conformal on backtest residuals per horizon";
  /** `calibrated`: every week has a band; `partial`: some horizons lack history; `insufficient_history`: none. */
  status: "calibrated" | "partial" | "insufficient_history";
  /** The local date of the backtest it was calibrated on; null without one. */
  calibratedOn: string | null;
  /** Residuals per horizon (1–13) it was calibrated on. */
  residualCounts: number[];
}

/**
 * Today's error bounds per horizon of one stored residual table, kept while the table object
 * lives: a recompute bands every scenario with the same backtest (about 4 ms per table).
 */
const todaysBounds = new WeakMap<object, (IntervalBounds | null)[]>();

/** The band of each week from per-horizon residuals (decimal strings, as the backtest keeps them). */
export function closingBands(
  weeks: readonly Pick<ForecastWeek, "closing">[],
  residuals: Record<number, readonly string[]> | null,
): { low: string | null; high: string | null }[] {
  let bounds = residuals ? todaysBounds.get(residuals) : undefined;
  if (residuals && !bounds) {
    const calibration = new IntervalCalibration(residualTable(residuals));
    const horizons = Math.max(0, ...Object.keys(residuals).map(Number));
    bounds = Array.from({ length: horizons }, (_, i) => calibration.bounds(i + 1));
    todaysBounds.set(residuals, bounds);
  }
  return weeks.map((w, i) => {
    const b = bounds?.[i] ?? null;
    if (!b) return { low: null, high: null };
    const closing = toCents(w.closing);
    return { low: centsToDecimal(closing - b.upper), high: centsToDecimal(closing - b.lower) };
  });
}
