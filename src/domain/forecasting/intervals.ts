import { type Cents, centsToDecimal, toCents } from "./cents.ts";
import type { ForecastWeek } from "./types.ts";

/**
 * Prediction intervals for weekly closing cash, from the organisation's own backtest residuals
 * (e = forecast − actual of the served BASE engine, per horizon, in origin order): adaptive
 * conformal inference (Gibbs & Candès 2021) on scores normalised by a spread model pooled over
 * horizons.
 *
 * - Spread: at each origin, the root-mean-square error of every horizon with MIN_RESIDUALS
 *   errors known then is fitted by log rms_k = a + β·log k (least squares over those horizons):
 *   spread_k = e^a·k^β. Long horizons borrow from short ones, whose errors are fresh.
 * - Scores: every error known at origin t, at every horizon k, divided by its horizon's spread
 *   as fitted at t: |e| ÷ spread_k(t) (a growing business's old errors score small against
 *   today's spread, and an early fit from few errors leaves no outlier score behind). Weighted by
 *   RECENCY^age (age in weeks since the error became known) so the band follows the engine's
 *   recent errors, not last year's.
 * - Band of horizon h at origin t: ± q·spread_h(t), q the weighted conformal (1 − α_h)-quantile of
 *   the scores (Barber et al. 2023: the new point weighs 1; beyond the scores' weight, the
 *   largest score).
 * - Adaptive level: α_h starts at 0.2 and, each time the week h of an earlier origin ends, moves
 *   by ACI_STEP·(0.2 − miss), kept within [−1, 0.7]: a miss widens the next bands of that
 *   horizon, a hit narrows them, so coverage at each horizon tracks 80% even when the errors
 *   drift. The band is centred on the forecast (no bias correction): a centre learned from past
 *   errors was a quarter stale at 13 weeks and missed when the bias turned.
 * - Provisional feedback: a week h ends h weeks after its origin, so at 13 weeks a drift would be
 *   felt a quarter late. At origin t, each earlier origin i whose week h is still running has
 *   k = t − i weeks behind it; its k-week error carried to h weeks as a drift (× h ÷ k) is judged
 *   against its h-week band and moves the level by ACI_STEP·(0.2 − miss) for the band at t only
 *   (the truth replaces the verdict when week h ends). Carrying the error by h ÷ k rather than by
 *   the spread's growth is what catches a trend the engine misses.
 * - Long horizons also hear the horizon a week shorter: from NEIGHBOUR_FROM weeks on, when the
 *   week h of origin t − h ends, so has the week h − 1 of origin t − h + 1 (a week fresher, the
 *   same bet on all but one week), and both verdicts move α_h. A horizon's own verdicts arrive h
 *   weeks late, so a long horizon's level has heard few of them when its bands are judged (at 13
 *   weeks, the first arrives after 13 of the 22 bands of a 52-origin backtest are built); twice
 *   the verdicts let it settle in half the weeks.
 *
 * docs/forecast.md, "Prediction intervals", has the figures that chose this.
 */

/** The interval's nominal coverage. */
export const INTERVAL_LEVEL = 0.8;
/** How `/forecast` names the method (`closingInterval.method`). */
export const INTERVAL_METHOD =
  "adaptive conformal with provisional feedback on backtest residuals, spread pooled over horizons, long horizons also adapted on the verdicts of the horizon a week shorter" as const;
/** Methods of older snapshots, still readable. */
export const EARLIER_INTERVAL_METHODS = [
  "adaptive conformal with provisional feedback on backtest residuals, spread pooled over horizons",
  "adaptive conformal on backtest residuals, spread pooled over horizons",
  "normalised split-conformal on backtest residuals, pooled over horizons",
  "split-conformal on backtest residuals per horizon",
] as const;
/** Fewer own residuals than this at a horizon: no band there ("insufficient history"). */
export const MIN_RESIDUALS = 6;
/** Fewer scores than this over all horizons: no band anywhere. */
export const MIN_SCORES = 12;
/** Horizons with MIN_RESIDUALS errors needed to fit the spread's growth with the horizon. */
export const MIN_FIT_HORIZONS = 2;
/** A score's weight per week since it became known (half-weight after about 13.5 weeks). */
export const RECENCY = 0.95;
/** Adaptive conformal step γ: how far one hit or miss moves the horizon's miscoverage level. */
export const ACI_STEP = 0.1;
/**
 * From this horizon on, a horizon's level also moves on the ended verdicts of the horizon a week
 * shorter. Below it every horizon's level already held 70–90% on every business of three seeds
 * with its own verdicts alone, and hearing the neighbour there only adds noise (the 1–7-week
 * cells' mean distance from 80% grows from 2.3 to 3.0 points); started anywhere from 2 to 11
 * weeks, the long horizons gain alike (docs/forecast.md).
 */
export const NEIGHBOUR_FROM = 8;

/**
 * Bounds of the adapted miscoverage level α: at most 0.7, so a run of hits never narrows the band
 * below the scores' 30th percentile (at α ≥ 1 ACI's band is empty; 0.5 held back the h − 1
 * provisional hits of a long horizon, and 0.6–0.9 measured the same); at least −1, so a run of
 * misses that pins the band at the largest score is undone by at most 75 hits.
 */
const ALPHA_MAX = 0.7;
const ALPHA_MIN = -1;

/** Residuals per horizon (1–13), in origin order: index j is the j-th origin replayed. */
type ResidualTable = Readonly<Record<number, readonly Cents[]>>;

export interface IntervalBounds {
  /** Error quantiles (forecast − actual), cents; closing − upper … closing − lower. */
  lower: Cents;
  upper: Cents;
}

/** Spread at horizon k: e^a·k^β. */
interface SpreadFit {
  a: number;
  beta: number;
}

const spreadAt = (fit: SpreadFit, k: number) => Math.exp(fit.a + fit.beta * Math.log(k));

/** Least-squares fit of log rms = a + β·log k; null with fewer than MIN_FIT_HORIZONS points. */
export function fitSpread(points: readonly { k: number; rms: number }[]): SpreadFit | null {
  const usable = points.filter((p) => p.rms > 0);
  if (usable.length < MIN_FIT_HORIZONS) return null;
  const xs = usable.map((p) => Math.log(p.k));
  const ys = usable.map((p) => Math.log(p.rms));
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = ys.reduce((s, y) => s + y, 0) / ys.length;
  let sxx = 0;
  let sxy = 0;
  xs.forEach((x, i) => {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * ((ys[i] as number) - my);
  });
  const beta = sxx > 0 ? sxy / sxx : 0;
  return { a: my - beta * mx, beta };
}

/**
 * The weighted conformal quantile (Barber, Candès, Ramdas & Tibshirani 2023): the smallest score
 * whose cumulative weight reaches `level` × (the scores' weight + 1, the new point's weight);
 * past all of them (the level asks for more than the scores hold), the largest score. `sorted`
 * is ascending by score; `weight`, their total weight when already known.
 */
export function weightedQuantile(
  sorted: readonly { score: number; weight: number }[],
  level: number,
  weight = sorted.reduce((s, x) => s + x.weight, 0),
): number | null {
  if (sorted.length === 0) return null;
  if (level <= 0) return 0;
  const total = weight + 1;
  // The ε keeps float noise from moving the rank by one.
  const target = level * total - 1e-9;
  let cum = 0;
  for (const x of sorted) {
    cum += x.weight;
    if (cum >= target) return x.score;
  }
  return (sorted[sorted.length - 1] as { score: number }).score;
}

/**
 * How many of horizon k's residuals are known at origin `at`: origin j's week k ends the Sunday
 * before origin j + k, so j is known when j + k ≤ at.
 */
const knownCount = (table: ResidualTable, k: number, at: number) =>
  Math.min((table[k] ?? []).length, Math.max(0, at - k + 1));

/**
 * The intervals' calibration over one residual table: the spread fit and the sorted weighted
 * scores of every origin, then each horizon's adaptive level replayed in origin order, computed
 * once, so the band at every origin (and today's) is a lookup.
 */
export class IntervalCalibration {
  private readonly horizons: number[];
  /** Origin index of "today": one past the last origin whose week 1 is known. */
  readonly today: number;
  private readonly fits: (SpreadFit | null)[] = [];
  private readonly sortedScores: { score: number; weight: number }[][] = [];
  private readonly scoreWeights: number[] = [];
  /** bands[h][t]: horizon h's error bounds at origin t (0 … today), null without enough history. */
  private readonly bands = new Map<number, (IntervalBounds | null)[]>();

  private readonly step: number;
  private readonly provisional: boolean;
  private readonly neighbourFrom: number;

  /**
   * `step`: the adaptive step γ (ACI_STEP; 0 replays a fixed 80% level); `provisional: false`
   * adapts only on weeks that have ended; `neighbourFrom`: the first horizon whose level also
   * hears the horizon a week shorter (NEIGHBOUR_FROM; Infinity for none, the method before).
   */
  constructor(
    private readonly table: ResidualTable,
    options: { step?: number; provisional?: boolean; neighbourFrom?: number } = {},
  ) {
    this.step = options.step ?? ACI_STEP;
    this.provisional = options.provisional ?? true;
    this.neighbourFrom = options.neighbourFrom ?? NEIGHBOUR_FROM;
    this.horizons = Object.keys(table)
      .map(Number)
      .sort((a, b) => a - b);
    this.today = Math.max(0, ...this.horizons.map((k) => (table[k] ?? []).length + k - 1));
    for (let t = 0; t <= this.today; t++) this.fits.push(this.fitAt(t));
    // At origin t every error known then, at every horizon k, is scored against the spread
    // fitted at t, and weighted by how long it has been known.
    for (let t = 0; t <= this.today; t++) {
      const fit = this.fits[t];
      const known: { score: number; weight: number }[] = [];
      if (fit)
        for (const k of this.horizons) {
          const spread = spreadAt(fit, k);
          const errors = table[k] ?? [];
          for (let j = 0; j < knownCount(table, k, t); j++)
            known.push({
              score: Math.abs(errors[j] as number) / spread,
              weight: RECENCY ** (t - j - k),
            });
        }
      known.sort((a, b) => a.score - b.score);
      this.sortedScores.push(known);
      this.scoreWeights.push(known.reduce((s, x) => s + x.weight, 0));
    }
    for (const h of this.horizons) this.bands.set(h, this.replay(h));
  }

  /** The spread fit from the errors known at origin t. */
  private fitAt(t: number): SpreadFit | null {
    const points: { k: number; rms: number }[] = [];
    for (const k of this.horizons) {
      const n = knownCount(this.table, k, t);
      if (n < MIN_RESIDUALS) continue;
      const errors = (this.table[k] ?? []).slice(0, n);
      points.push({ k, rms: Math.sqrt(errors.reduce((s, e) => s + e * e, 0) / n) });
    }
    return fitSpread(points);
  }

  /**
   * Horizon h's bands at origins 0 … today, its miscoverage level adapted as its weeks end, and
   * for the band at each origin, provisionally, by the weeks of later origins still running.
   */
  private replay(h: number): (IntervalBounds | null)[] {
    const errors = this.table[h] ?? [];
    const target = 1 - INTERVAL_LEVEL;
    const move = (alpha: number, band: IntervalBounds, e: number) => {
      const miss = e < band.lower || e > band.upper ? 1 : 0;
      return alpha + this.step * (target - miss);
    };
    const clamp = (alpha: number) => Math.min(ALPHA_MAX, Math.max(ALPHA_MIN, alpha));
    // The horizon a week shorter, replayed before this one (horizons ascending).
    const shorter = h >= this.neighbourFrom ? this.bands.get(h - 1) : undefined;
    const shorterErrors = this.table[h - 1] ?? [];
    let alpha = target;
    const out: (IntervalBounds | null)[] = [];
    for (let t = 0; t <= this.today; t++) {
      // Origin t − h's week h ended before origin t: was it inside the band built then? From
      // NEIGHBOUR_FROM on, origin t − h + 1's week h − 1 ended with it, and is heard too.
      const j = t - h;
      const judged = j >= 0 ? out[j] : null;
      if (judged && j < errors.length) {
        let next = move(alpha, judged, errors[j] as Cents);
        const neighbour = shorter?.[j + 1];
        if (neighbour && j + 1 < shorterErrors.length)
          next = move(next, neighbour, shorterErrors[j + 1] as Cents);
        alpha = clamp(next);
      }
      // Origins t − h + 1 … t − 1 have k = t − i of their h weeks behind them: their k-week
      // error, carried to h weeks as a drift (× h ÷ k), is judged against their h-week band.
      // These verdicts move only this origin's level; the truth replaces them when week h ends.
      let provisional = alpha;
      if (this.provisional)
        for (let i = Math.max(0, j + 1); i < t; i++) {
          const k = t - i;
          const band = out[i];
          const partial = this.table[k]?.[i];
          if (band && partial !== undefined)
            provisional = move(provisional, band, (partial * h) / k);
        }
      out.push(this.bandAt(h, t, 1 - clamp(provisional)));
    }
    return out;
  }

  private bandAt(h: number, t: number, level: number): IntervalBounds | null {
    const fit = this.fits[t];
    const scores = this.sortedScores[t] ?? [];
    if (!fit || knownCount(this.table, h, t) < MIN_RESIDUALS || scores.length < MIN_SCORES)
      return null;
    const q = weightedQuantile(scores, level, this.scoreWeights[t]) as number;
    const half = Math.round(q * spreadAt(fit, h));
    return { lower: -half as Cents, upper: half as Cents };
  }

  /**
   * The error bounds of horizon h's band at origin `at` (default today), from errors known then;
   * null when the horizon has fewer than MIN_RESIDUALS errors, the spread cannot be fitted (fewer
   * than MIN_FIT_HORIZONS horizons with them) or fewer than MIN_SCORES errors are scored.
   */
  bounds(h: number, at = this.today): IntervalBounds | null {
    return this.bands.get(h)?.[Math.min(at, this.today)] ?? null;
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
  /** Older snapshots carry the method they were banded with. */
  method: typeof INTERVAL_METHOD | (typeof EARLIER_INTERVAL_METHODS)[number];
  /** `calibrated`: every week has a band; `partial`: some horizons lack history; `insufficient_history`: none. */
  status: "calibrated" | "partial" | "insufficient_history";
  /** The local date of the backtest it was calibrated on; null without one. */
  calibratedOn: string | null;
  /** Residuals per horizon (1–13) it was calibrated on. */
  residualCounts: number[];
}

/**
 * Today's error bounds per horizon of one stored residual table, kept while the table object
 * lives: a recompute bands every scenario with the same backtest.
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
