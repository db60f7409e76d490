import { prorate } from "./amounts.ts";
import { ymdOf } from "./calendar.ts";
import type { Prng } from "./prng.ts";

/**
 * One fortnightly pay run: `gross` wages are the expense, `payg` of it is withheld (a liability
 * until the quarterly BAS pays it to the tax office), `net` = gross − payg leaves the bank.
 */
export interface PayRun {
  day: number;
  net: number;
  payg: number;
  gross: number;
}

/**
 * Fortnightly pay runs on Thursdays over the window. The wage bill is sized from revenue (about
 * a fifth of it, net) so that the business stays solvent at every scale, with a 3.5% raise each
 * 1 July and small run-to-run variation (overtime, leave).
 */
export function planPayroll(
  prng: Prng,
  start: number,
  today: number,
  annualRevenue: number,
  scale: number,
): PayRun[] {
  const runs: PayRun[] = [];
  const baseNet = Math.max(
    Math.round(150_000 * Math.min(1, scale)),
    Math.round((annualRevenue * 0.19) / 26),
  );
  let day = start + prng.int(0, 13);
  while ((day + 4) % 7 !== 4) day += 1; // the first Thursday on or after
  for (; day <= today; day += 14) {
    const { y, m } = ymdOf(day);
    const raises = Math.max(
      0,
      (m >= 7 ? y : y - 1) - (ymdOf(start).m >= 7 ? ymdOf(start).y : ymdOf(start).y - 1),
    );
    let net = baseNet;
    for (let r = 0; r < raises; r++) net = prorate(net, 1035, 1000);
    net = prorate(net, 1000 + prng.int(-15, 25), 1000);
    const payg = prorate(net, 27, 100);
    runs.push({ day, net, payg, gross: net + payg });
  }
  return runs;
}
