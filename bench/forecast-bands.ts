/**
 * The 80% bands replayed on stored backtests (`npx tsx bench/forecast-bands.ts family.json
 * holdout.json …`, each file the FAMILY_JSON of one `npm run bench:forecast`): the served
 * calibration and the methods before it (`IntervalCalibration`'s options), on the same residuals,
 * in seconds instead of a bench run per seed. Per method: the business × horizon cells inside
 * 70–90% per file (the demo only in the first file that has it, as the bench counts it), the
 * width (half-width ÷ the business's MAE at that horizon, every band at 1, 4 and 13 weeks; median,
 * 90th percentile, widest) and the cells outside. Figures: docs/forecast.md, "Prediction intervals".
 */
import { readFileSync } from "node:fs";
import type { BacktestResult } from "../src/domain/forecasting/backtest.ts";
import { toCents } from "../src/domain/forecasting/cents.ts";
import { IntervalCalibration } from "../src/domain/forecasting/intervals.ts";

const HORIZONS = Array.from({ length: 13 }, (_, i) => i + 1);
const METHODS: [string, ConstructorParameters<typeof IntervalCalibration>[1]][] = [
  ["long horizons also hear the horizon a week shorter (served)", {}],
  ["every horizon on its own verdicts (served until 27 November)", { neighbourFrom: Infinity }],
  ["no provisional feedback", { provisional: false, neighbourFrom: Infinity }],
];

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: forecast-bands.ts FAMILY_JSON …");
const runs = files.map((f) => ({
  file: f,
  results: JSON.parse(readFileSync(f, "utf8")) as Record<string, BacktestResult>,
}));
const quantile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? Number.NaN;

for (const [name, options] of METHODS) {
  const cells: number[] = [];
  const widths: number[] = [];
  const outside: string[] = [];
  let demoSeen = false;
  for (const { file, results } of runs) {
    let inside = 0;
    for (const [label, r] of Object.entries(results)) {
      if (label === "demo" && demoSeen) continue;
      if (label === "demo") demoSeen = true;
      const table = Object.fromEntries(
        HORIZONS.map((h) => [h, (r.residuals[h] ?? []).map(toCents)]),
      );
      const calibration = new IntervalCalibration(table, options);
      for (const h of HORIZONS) {
        const c = calibration.sequentialCoverage(h).coverage;
        if (c !== null && c >= 0.7 - 1e-9 && c <= 0.9 + 1e-9) inside += 1;
        else outside.push(`${file} ${label} ${h} w ${c === null ? "—" : Math.round(c * 100)}%`);
      }
      for (const h of [1, 4, 13]) {
        const errors = table[h] ?? [];
        const mae = errors.reduce((s, e) => s + Math.abs(e), 0) / errors.length;
        errors.forEach((_, at) => {
          const b = calibration.bounds(h, at);
          if (b && mae > 0) widths.push(b.upper / mae);
        });
      }
    }
    cells.push(inside);
  }
  console.log(
    `| ${name} | ${cells.join(" / ")} (${cells.reduce((s, x) => s + x, 0)}) | ${quantile(widths, 0.5).toFixed(2)} / ${quantile(widths, 0.9).toFixed(2)} / ${Math.max(...widths).toFixed(2)} (${widths.length} bands) |`,
  );
  console.log(`  outside: ${outside.join(", ")}`);
}
