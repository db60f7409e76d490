import type { BacktestResult, HorizonScore } from "./backtest.ts";

const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "—" : `${(v * 100).toFixed(1)}%`;

/** The better (lower-MAE) naive baseline's score at horizon `h`. */
export function betterBaseline(r: BacktestResult, h: number): HorizonScore | undefined {
  const flat = r.scores.flat[h - 1];
  const due = r.scores.due_dates[h - 1];
  if (!flat || !due) return flat ?? due;
  return Number(due.mae) < Number(flat.mae) ? due : flat;
}

/**
 * The backtest as a table, one row per horizon: BASE's MAE, MAPE and bias, each baseline's MAE,
 * and BASE's MAE against the better baseline (−40% = 40% below it).
 */
export function backtestTable(r: BacktestResult): string[] {
  const head = [
    "week",
    "n",
    "avg cash",
    "BASE MAE",
    "MAPE",
    "bias",
    "flat MAE",
    "due MAE",
    "vs best",
    "80% cover/n",
  ];
  const widths = [4, 3, 13, 12, 7, 12, 12, 12, 8, 11];
  const row = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i] ?? 8)).join(" ");
  const out = [row(head)];
  for (const h of r.horizons) {
    const base = r.scores.BASE[h - 1];
    const best = betterBaseline(r, h);
    if (!base || base.count === 0) continue;
    const vs = best && Number(best.mae) > 0 ? Number(base.mae) / Number(best.mae) - 1 : null;
    out.push(
      row([
        String(h),
        String(base.count),
        r.averageCash[h] ?? "0",
        base.mae,
        pct(base.mape),
        base.bias,
        r.scores.flat[h - 1]?.mae ?? "—",
        r.scores.due_dates[h - 1]?.mae ?? "—",
        vs === null ? "—" : `${vs >= 0 ? "+" : ""}${(vs * 100).toFixed(0)}%`,
        `${pct(r.intervalCoverage?.[h])}/${r.intervalChecks?.[h] ?? 0}`,
      ]),
    );
  }
  return out;
}

/**
 * One line per business: at 1, 4 and 13 weeks, BASE's MAE against the better baseline (−40% =
 * 40% below it) and |bias| ÷ MAE.
 */
export function familySummary(name: string, r: BacktestResult): string {
  const cells = [1, 4, 13].map((h) => {
    const base = r.scores.BASE[h - 1];
    const best = betterBaseline(r, h);
    if (!base || base.count === 0 || !best) return `${h}w: —`;
    const vs = Number(best.mae) > 0 ? Number(base.mae) / Number(best.mae) - 1 : 0;
    const bias = Number(base.mae) > 0 ? Math.abs(Number(base.bias)) / Number(base.mae) : 0;
    const cover = r.intervalCoverage?.[h];
    return `${h}w ${`${vs >= 0 ? "+" : ""}${(vs * 100).toFixed(0)}%`.padStart(5)} bias ${bias.toFixed(2)} cover ${pct(cover)}`;
  });
  return `${name.padEnd(18)} ${cells.join("   ")}`;
}

/**
 * One line per business: the 80% interval's coverage at horizons 1–13 (judged as lived, see
 * `intervalCoverage`), a `*` after each outside the target 70–90%, and how many are inside.
 */
export function coverageRow(name: string, r: BacktestResult): { line: string; inside: number } {
  let inside = 0;
  const cells = r.horizons.map((h) => {
    const c = r.intervalCoverage?.[h];
    if (c === null || c === undefined) return "   — ";
    // The ε keeps 0.7 and 0.9 themselves inside despite float noise.
    const ok = c >= 0.7 - 1e-9 && c <= 0.9 + 1e-9;
    if (ok) inside += 1;
    return `${String(Math.round(c * 100)).padStart(4)}${ok ? " " : "*"}`;
  });
  return { line: `${name.padEnd(18)}${cells.join("")}   ${inside}/${r.horizons.length}`, inside };
}
