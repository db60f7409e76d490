/** Small statistics helpers on plain numbers (counts, days, weekly sums as floats). */

/** Median of a non-empty list (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  let total = 0;
  for (const v of values) total += v;
  return total / values.length;
}

/** Ordinary least squares of y on x = 0, 1, … n−1, with the slope's two-sided p-value. */
export interface Regression {
  slope: number;
  intercept: number;
  /** Two-sided p-value of the slope (Student t, n − 2 degrees of freedom); 1 when n < 3. */
  pValue: number;
  n: number;
}

export function linearRegression(y: readonly number[]): Regression {
  const n = y.length;
  if (n < 2) return { slope: 0, intercept: y[0] ?? 0, pValue: 1, n };
  const xMean = (n - 1) / 2;
  const yMean = mean(y);
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (i - xMean) ** 2;
    sxy += (i - xMean) * ((y[i] ?? 0) - yMean);
  }
  const slope = sxy / sxx;
  const intercept = yMean - slope * xMean;
  if (n < 3) return { slope, intercept, pValue: 1, n };
  let sse = 0;
  for (let i = 0; i < n; i++) sse += ((y[i] ?? 0) - (intercept + slope * i)) ** 2;
  const df = n - 2;
  const se = Math.sqrt(sse / df / sxx);
  // A perfect fit: any non-zero slope is certain, a flat line is no trend at all.
  if (se === 0 || !Number.isFinite(se)) return { slope, intercept, pValue: slope === 0 ? 1 : 0, n };
  const t = slope / se;
  return { slope, intercept, pValue: studentTTwoSided(t, df), n };
}

/** P(|T| ≥ |t|) for Student's t with `df` degrees of freedom. */
export function studentTTwoSided(t: number, df: number): number {
  const x = df / (df + t * t);
  return Math.min(1, Math.max(0, regularizedIncompleteBeta(x, df / 2, 0.5)));
}

/** ln Γ(x), Lanczos approximation (g = 7, n = 9): ~15 significant digits. */
function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
    1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0] ?? 0;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += (c[i] ?? 0) / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** I_x(a, b), by the continued fraction (Numerical Recipes' betacf). */
export function regularizedIncompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(
    logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x),
  );
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return (front * betaContinuedFraction(x, a, b)) / a;
  return 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-14) break;
  }
  return h;
}
