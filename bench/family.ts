/**
 * The family of demo businesses the forecast benches replay (`npm run bench:forecast`,
 * `npm run bench:forecast-components`, bench/forecast-components-sales.ts), chosen by the
 * environment: FAMILY_SEED (default "family"), FAMILY_NOW (default 2026-11-22T01:00:00Z, a Sunday
 * noon in Sydney), FAMILY_BUSINESSES (comma-separated; default every one), FAMILY_ORIGINS
 * (default DEFAULT_ORIGINS). After the family comes the demo itself (the roaster on seed "demo",
 * what `cashrunway demo` makes) as one more run, "demo"; FAMILY_DEMO=0 leaves it out.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "../src/db/client.ts";
import { BUSINESSES, type Business, isBusiness } from "../src/demo/business.ts";
import { DEFAULT_ORIGINS } from "../src/domain/forecasting/backtest.ts";
import { type SeededDemo, seedDemo } from "../src/services/demo/seed-demo.ts";

export const FAMILY_NOW = new Date(process.env.FAMILY_NOW ?? "2026-11-22T01:00:00Z");
export const FAMILY_ORIGINS = Number(process.env.FAMILY_ORIGINS ?? DEFAULT_ORIGINS);

/** One business to replay: its label in the tables, the behaviour generated and its seed. */
export interface FamilyRun {
  label: string;
  business: Business;
  seed: string;
}

/** The runs the environment selects, in table order. */
export function familyRuns(): FamilyRun[] {
  const seed = process.env.FAMILY_SEED ?? "family";
  const runs: FamilyRun[] = (process.env.FAMILY_BUSINESSES ?? BUSINESSES.join(","))
    .split(",")
    .map((s) => s.trim())
    .filter(isBusiness)
    .map((business) => ({ label: business, business, seed }));
  if (process.env.FAMILY_DEMO !== "0")
    runs.push({ label: "demo", business: "roaster", seed: "demo" });
  return runs;
}

/** Generates one run's ledger at FAMILY_NOW and imports it into `db` as a new organisation. */
export function seedFamilyRun(db: Db, run: FamilyRun): Promise<SeededDemo> {
  return seedDemo(db, {
    seed: run.seed,
    now: FAMILY_NOW,
    business: run.business,
    name: `Family ${run.label}`,
    folder: mkdtempSync(join(tmpdir(), `family-${run.label}-`)),
  });
}
