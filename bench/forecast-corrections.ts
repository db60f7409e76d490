/**
 * Corrections learned from the organisation's own track record, replayed on stored backtests
 * (`npx tsx bench/forecast-corrections.ts family.json holdout.json …`, each file the FAMILY_JSON
 * of one `npm run bench:forecast`). At origin t, the raw engine's h-week errors of the origins
 * whose week h had ended by then (origin j's week h is known from origin j + h on) are all a
 * correction may read; the served forecast would be the raw one less the correction, so its error
 * is the raw error less the correction, exactly, with no look-ahead, and the backtest of the
 * corrected engine is this replay. The bands are recalibrated on the corrected errors (the served
 * engine's), as `intervals.ts` would.
 *
 * Per variant and file: the summed MAE of the businesses at 1 / 4 / 13 weeks (thousands), how
 * many business × horizon cells (1, 4, 13 weeks) meet the bias target (|bias| < MAE ÷ 3) and the
 * MAE target (30% below the better naive baseline), how many of the 13 horizons' bands are
 * inside 70–90%, and the largest loss against the better baseline of any business at 1, 4 or 13
 * weeks (points). A markdown row per variant; ROWS=1 adds each business's cells. Figures and
 * what they decided: docs/forecast.md, "Corrections from the track record".
 */
import { readFileSync } from "node:fs";
import type { BacktestResult } from "../src/domain/forecasting/backtest.ts";
import { betterBaseline } from "../src/domain/forecasting/backtest-report.ts";
import { toCents } from "../src/domain/forecasting/cents.ts";
import { IntervalCalibration, RECENCY } from "../src/domain/forecasting/intervals.ts";

/** Errors per horizon (1–13) in origin order, cents. */
type Table = Record<number, number[]>;
interface Errors {
  base: Table;
  due: Table | null;
  flat: Table | null;
}
/** The correction (an estimate of forecast − actual) of horizon h's closing at origin t. */
type Correction = (e: Errors, t: number, h: number) => number;

const H = 13;
const HORIZONS = Array.from({ length: H }, (_, i) => i + 1);
/** The collection curves' and the earlier measurement's pseudo-count: mean × n ÷ (n + 12). */
const PRIOR = 12;

const table = (residuals: Record<number, readonly string[]>): Table =>
  Object.fromEntries(HORIZONS.map((h) => [h, (residuals[h] ?? []).map(toCents)]));
const knownCount = (t: Table, h: number, at: number) =>
  Math.min((t[h] ?? []).length, Math.max(0, at - h + 1));
/** Horizon h's errors known at origin `at`, oldest first. */
const known = (t: Table, h: number, at: number) => (t[h] ?? []).slice(0, knownCount(t, h, at));
/** Origins still running at `at` with k < h weeks behind them: their k-week error × h ÷ k. */
const running = (t: Table, h: number, at: number) => {
  const out: number[] = [];
  for (let i = Math.max(0, at - h + 1); i < at; i++) {
    const k = at - i;
    const e = t[k]?.[i];
    if (e !== undefined) out.push((e * h) / k);
  }
  return out;
};

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const median = (xs: readonly number[]) => {
  const a = [...xs].sort((x, y) => x - y);
  const m = a.length >> 1;
  return a.length % 2 ? (a[m] as number) : ((a[m - 1] as number) + (a[m] as number)) / 2;
};
/** Weighted mean and the variance of that mean (Kish's effective count). */
function weighted(xs: readonly number[], ws: readonly number[]) {
  const w = ws.reduce((s, x) => s + x, 0);
  const w2 = ws.reduce((s, x) => s + x * x, 0);
  const m = xs.reduce((s, x, i) => s + x * (ws[i] as number), 0) / w;
  const n = (w * w) / w2;
  const v = xs.reduce((s, x, i) => s + (ws[i] as number) * (x - m) ** 2, 0) / w;
  return { m, se2: v / Math.max(1, n - 1) };
}
/**
 * The variance of the mean of h-week errors with Newey–West's Bartlett weights over h − 1 lags:
 * windows of consecutive origins overlap by h − 1 weeks (as in the Diebold–Mariano test).
 */
function neweyWest(xs: readonly number[], h: number) {
  const n = xs.length;
  const m = mean(xs);
  const gamma = (l: number) => {
    let s = 0;
    for (let i = l; i < n; i++) s += ((xs[i] as number) - m) * ((xs[i - l] as number) - m);
    return s / n;
  };
  let v = gamma(0);
  for (let l = 1; l < Math.min(h, n); l++) v += 2 * (1 - l / h) * gamma(l);
  return { m, se2: Math.max(v, gamma(0) / n) / n };
}
/** A mean shrunk toward 0 by its standard error: m · m² ÷ (m² + se²) (customer-trend.ts's rule). */
const shrunk = (s: { m: number; se2: number }) =>
  s.m === 0 ? 0 : (s.m * s.m * s.m) / (s.m * s.m + s.se2);
const byPrior = (xs: readonly number[], centre = mean) =>
  xs.length === 0 ? 0 : (centre(xs) * xs.length) / (xs.length + PRIOR);
const shrunkMean = (xs: readonly number[], ws = xs.map(() => 1)) =>
  xs.length < 2 ? 0 : shrunk(weighted(xs, ws));
/** Recency weights, RECENCY per week since the error became known. */
const recency = (n: number, h: number, at: number) =>
  Array.from({ length: n }, (_, j) => RECENCY ** (at - j - h));

/** A correction applied at (t, h) only when its own record at h (as it would have been computed
 * at each earlier origin) beat the raw errors there: in sum, or by a Diebold–Mariano t of 2. */
function gated(c: Correction, test: "sum" | "dm"): Correction {
  return (e, t, h) => {
    const errs = known(e.base, h, t);
    if (errs.length < 2) return 0;
    const gain = errs.map((x, j) => Math.abs(x) - Math.abs(x - c(e, j, h)));
    const ok =
      test === "sum"
        ? mean(gain) > 0
        : ((s) => s.m > 0 && s.m * s.m > 4 * s.se2)(neweyWest(gain, h));
    return ok ? c(e, t, h) : 0;
  };
}

/**
 * A correction applied at every horizon only when its own record over all horizons beat the raw
 * errors: Σ over horizons and known origins of (|e| − |e − c|) ÷ the horizon's root-mean-square
 * error, above 0 (one decision per organisation and origin, on far more errors than one horizon's).
 */
function gatedOverHorizons(c: Correction): Correction {
  return (e, t, h) => {
    let gain = 0;
    for (const k of HORIZONS) {
      const errs = known(e.base, k, t);
      if (errs.length < 2) continue;
      const rms = Math.sqrt(mean(errs.map((x) => x * x))) || 1;
      errs.forEach((x, j) => {
        gain += (Math.abs(x) - Math.abs(x - c(e, j, k))) / rms;
      });
    }
    return gain > 0 ? c(e, t, h) : 0;
  };
}

/** A learned scale λ ∈ [0, 1] on a predictor: least squares of known errors on its past values. */
function scaled(p: Correction): Correction {
  return (e, t, h) => {
    let num = 0;
    let den = 0;
    known(e.base, h, t).forEach((x, j) => {
      const v = p(e, j, h);
      num += x * v;
      den += v * v;
    });
    return den > 0 ? Math.min(1, Math.max(0, num / den)) * p(e, t, h) : 0;
  };
}

/**
 * Forecast combination (Bates & Granger 1969) with a naive baseline: served = BASE + w·(other −
 * BASE), w ∈ [0, 1] from the known errors of both (least squares, or inverse mean squared
 * errors), at least 6 known. As a correction: −w·(e_other − e_BASE) at origin t, which is the
 * two forecasts' difference, known at t.
 */
function combined(other: (e: Errors) => Table | null, rule: "ls" | "inverse"): Correction {
  return (e, t, h) => {
    const o = other(e);
    const n = knownCount(e.base, h, t);
    if (!o || n < 6) return 0;
    let bd = 0;
    let dd = 0;
    let bb = 0;
    let oo = 0;
    for (let j = 0; j < n; j++) {
      const b = e.base[h]?.[j] as number;
      const x = o[h]?.[j] as number;
      bd += b * (x - b);
      dd += (x - b) ** 2;
      bb += b * b;
      oo += x * x;
    }
    const w = rule === "ls" ? (dd > 0 ? -bd / dd : 0) : bb / (bb + oo);
    return -Math.min(1, Math.max(0, w)) * ((o[h]?.[t] as number) - (e.base[h]?.[t] as number));
  };
}

const perHorizon = (f: (xs: number[], e: Errors, t: number, h: number) => number): Correction => {
  return (e, t, h) => f(known(e.base, h, t), e, t, h);
};
const levelFromWeek1 =
  (f: (xs: number[]) => number): Correction =>
  (e, t) =>
    f(known(e.base, 1, t));
/** Weekly flows f_k = e_k − e_{k−1} of each origin; each week's mean shrunk, summed to h. */
const flows =
  (f: (xs: number[]) => number): Correction =>
  (e, t, h) => {
    let c = 0;
    for (let k = 1; k <= h; k++)
      c += f(known(e.base, k, t).map((x, j) => x - (k === 1 ? 0 : (e.base[k - 1]?.[j] as number))));
    return c;
  };

const meanByPrior = perHorizon((xs) => byPrior(xs));
const level1ByPrior = levelFromWeek1((xs) => byPrior(xs));
const dueInverse = combined((e) => e.due, "inverse");
const dueLs = combined((e) => e.due, "ls");

const VARIANTS: [string, Correction][] = [
  ["none (the engine as served)", () => 0],
  ["mean × n ÷ (n + 12)", meanByPrior],
  ["mean shrunk by its standard error", perHorizon((xs) => shrunkMean(xs))],
  [
    "the same, recency-weighted (0.95 a week)",
    perHorizon((xs, _e, t, h) => shrunkMean(xs, recency(xs.length, h, t))),
  ],
  ["the same, the last 13 errors", perHorizon((xs) => shrunkMean(xs.slice(-13)))],
  [
    "the same, Newey–West standard error",
    perHorizon((xs, _e, _t, h) => (xs.length < 2 ? 0 : shrunk(neweyWest(xs, h)))),
  ],
  [
    "the same, with running origins (k-week error × h ÷ k)",
    perHorizon((xs, e, t, h) => shrunkMean([...xs, ...running(e.base, h, t)])),
  ],
  ["running origins only, shrunk", (e, t, h) => shrunkMean(running(e.base, h, t))],
  [
    "where the mean × n ÷ (n + 12) and the running origins' mean agree in sign, the smaller",
    (e, t, h) => {
      const m = byPrior(known(e.base, h, t));
      const r = ((xs) => (xs.length ? mean(xs) : 0))(running(e.base, h, t));
      return m * r > 0 ? Math.sign(m) * Math.min(Math.abs(m), Math.abs(r)) : 0;
    },
  ],
  ["median × n ÷ (n + 12)", perHorizon((xs) => byPrior(xs, median))],
  [
    "mean where |t| > 2, else 0",
    perHorizon((xs) =>
      xs.length < 2
        ? 0
        : ((s) => (s.m * s.m > 4 * s.se2 ? s.m : 0))(
            weighted(
              xs,
              xs.map(() => 1),
            ),
          ),
    ),
  ],
  [
    "pooled drift: each origin's longest known error ÷ its weeks, shrunk, × h",
    (e, t, h) => {
      const xs: number[] = [];
      const ws: number[] = [];
      for (let i = 0; i < t; i++) {
        const k = Math.min(H, t - i);
        const x = e.base[k]?.[i];
        if (x === undefined) continue;
        xs.push(x / k);
        ws.push(RECENCY ** (t - i - k));
      }
      return xs.length < 2 ? 0 : h * shrunk(weighted(xs, ws));
    },
  ],
  ["1-week mean shrunk, × h", (e, t, h) => h * shrunkMean(known(e.base, 1, t))],
  ["level: the 1-week mean shrunk, at every horizon", levelFromWeek1((xs) => shrunkMean(xs))],
  ["level: the 1-week mean × n ÷ (n + 12), at every horizon", level1ByPrior],
  ["weekly flows, each week's mean × n ÷ (n + 12)", flows((xs) => byPrior(xs))],
  ["weekly flows, each week's mean shrunk", flows((xs) => shrunkMean(xs))],
  ["learned scale λ × the mean", scaled(perHorizon((xs) => (xs.length ? mean(xs) : 0)))],
  [
    "learned scale λ × the mean with running origins",
    scaled(
      perHorizon((xs, e, t, h) =>
        ((ys) => (ys.length ? mean(ys) : 0))([...xs, ...running(e.base, h, t)]),
      ),
    ),
  ],
  ["learned scale λ × the last known error", scaled(perHorizon((xs) => xs.at(-1) ?? 0))],
  ["mean × n ÷ (n + 12) where its own record beat raw", gated(meanByPrior, "sum")],
  ["the same, Diebold–Mariano t > 2", gated(meanByPrior, "dm")],
  ["level from 1 week × n ÷ (n + 12), Diebold–Mariano t > 2", gated(level1ByPrior, "dm")],
  [
    "mean × n ÷ (n + 12) where its record over all horizons beat raw",
    gatedOverHorizons(meanByPrior),
  ],
  ["level from 1 week × n ÷ (n + 12), the same", gatedOverHorizons(level1ByPrior)],
  ["combined with due dates, least-squares weight", dueLs],
  ["combined with due dates, inverse-MSE weight", dueInverse],
  ["the same, where its own record beat raw", gated(dueInverse, "sum")],
  ["combined with due dates, least squares, Diebold–Mariano t > 2", gated(dueLs, "dm")],
  [
    "combined with due dates, inverse-MSE, where its record over all horizons beat raw",
    gatedOverHorizons(dueInverse),
  ],
  ["combined with flat, least-squares weight", combined((e) => e.flat, "ls")],
  [
    "(look-ahead, not servable) the whole sample's mean",
    (e, _t, h) => ((xs) => (xs.length ? mean(xs) : 0))(e.base[h] ?? []),
  ],
];

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: forecast-corrections.ts FAMILY_JSON …");
const runs = files.map(
  (f) => JSON.parse(readFileSync(f, "utf8")) as Record<string, BacktestResult>,
);
const inside = (c: number | null) => c !== null && c >= 0.7 - 1e-9 && c <= 0.9 + 1e-9;

for (const [name, correction] of VARIANTS) {
  const cells: string[][] = [[], [], [], [], []];
  const rows: string[] = [];
  for (const results of runs) {
    const sums = [0, 0, 0];
    let bias = 0;
    let mae = 0;
    let bands = 0;
    let worst = { points: Number.NEGATIVE_INFINITY, at: "" };
    for (const [label, r] of Object.entries(results)) {
      const e: Errors = {
        base: table(r.residuals),
        due: r.baselineResiduals ? table(r.baselineResiduals.due_dates) : null,
        flat: r.baselineResiduals ? table(r.baselineResiduals.flat) : null,
      };
      const corrected: Table = Object.fromEntries(
        HORIZONS.map((h) => [
          h,
          (e.base[h] ?? []).map((x, t) => x - Math.round(correction(e, t, h))),
        ]),
      );
      const calibration = new IntervalCalibration(corrected);
      const line = [1, 4, 13].map((h, i) => {
        const errs = corrected[h] ?? [];
        const m = mean(errs.map(Math.abs)) / 100;
        const b = mean(errs) / 100;
        const best = Number(betterBaseline(r, h)?.mae);
        const vs = m / best - 1;
        const before = Number(r.scores.BASE[h - 1]?.mae) / best - 1;
        sums[i] = (sums[i] as number) + m;
        if (Math.abs(b) < m / 3) bias += 1;
        if (vs <= -0.3) mae += 1;
        if ((vs - before) * 100 > worst.points)
          worst = { points: (vs - before) * 100, at: `${label} ${h} w` };
        const cover = calibration.sequentialCoverage(h).coverage;
        return `${h} w ${Math.round(vs * 100)}% / ${(Math.abs(b) / m).toFixed(2)} / ${cover === null ? "—" : Math.round(cover * 100)}`;
      });
      bands += HORIZONS.filter((h) => inside(calibration.sequentialCoverage(h).coverage)).length;
      rows.push(`  ${label.padEnd(18)} ${line.join("   ")}`);
    }
    cells[0]?.push(sums.map((s) => (s / 1000).toFixed(1)).join(" / "));
    cells[1]?.push(String(bias));
    cells[2]?.push(String(mae));
    cells[3]?.push(String(bands));
    cells[4]?.push(`${worst.points >= 0 ? "+" : ""}${Math.round(worst.points)} (${worst.at})`);
  }
  const [sums, bias, mae, bands, worst] = cells as [
    string[],
    string[],
    string[],
    string[],
    string[],
  ];
  console.log(
    `| ${name} | ${sums.join(" | ")} | ${bias.join(" / ")} | ${mae.join(" / ")} | ${bands.join(" / ")} | ${worst.join(", ")} |`,
  );
  if (process.env.ROWS) for (const r of rows) console.log(r);
}
