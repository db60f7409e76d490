/**
 * In-process timing of the forecast engine (`npx tsx bench/forecast.ts`): no database, no HTTP.
 *
 * Builds a deterministic synthetic organisation: FORECAST_ITEMS open cash items (default
 * 100,000: 70% receivables, 25% bills, 5% manual and pipeline, 3% foreign currency, dates from
 * 90 days overdue to 150 days ahead), 400 open purchase orders, two years of sales history for
 * FORECAST_CUSTOMERS customers (default 13,700 with the demo's mix of cadences, as the
 * 100,000-invoice demo; about twice its invoices, to be on the heavy side) and a recurring
 * history (payroll, rent, subscriptions). Then times, over FORECAST_RUNS runs (median, max):
 *   model     — buildForecastModel: recurring detection + hazard-model fitting (once per recompute);
 *   scenario  — computeForecast with the model, per scenario (BASE, BEST, WORST, CUSTOM);
 *   full      — computeForecast without a shared model (what one scenario costs alone).
 * And a digest (SHA-256) of everything the recompute derives from the engine (each scenario's
 * whole result and its learned parameters): a performance change must leave it as it was.
 */
import { createHash } from "node:crypto";
import { buildForecastModel, computeForecast } from "../src/domain/forecasting/compute-forecast.ts";
import { addDays } from "../src/domain/forecasting/dates.ts";
import { learnedParameters } from "../src/domain/forecasting/learned.ts";
import type {
  ForecastInput,
  OpenItem,
  RecurringHistoryEntry,
  SalesHistoryEntry,
  ScenarioInput,
} from "../src/domain/forecasting/types.ts";

const ITEMS = Number(process.env.FORECAST_ITEMS ?? 100_000);
const CUSTOMERS = Number(process.env.FORECAST_CUSTOMERS ?? 13_700);
const RUNS = Number(process.env.FORECAST_RUNS ?? 5);
const NOW = new Date("2026-06-30T02:00:00Z");
const TODAY = "2026-06-30";

// A small deterministic PRNG (mulberry32), so every run times the same input.
let state = 0x9e3779b9;
const rand = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const cents = (lo: number, hi: number) => (int(lo, hi) / 100).toFixed(2);

function buildInput(): Omit<ForecastInput, "scenario"> {
  const accounts = Array.from({ length: 40 }, (_, i) => ({ id: `acc_${i}`, name: `Account ${i}` }));
  const openItems: OpenItem[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const r = rand();
    const source =
      r < 0.7 ? "LEDGER_INVOICE" : r < 0.95 ? "LEDGER_BILL" : r < 0.98 ? "MANUAL" : "PIPELINE";
    const due = addDays(TODAY, int(-90, 150));
    const foreign = rand() < 0.03;
    openItems.push({
      id: `ci_${i.toString().padStart(8, "0")}`,
      source,
      ledgerStatus: source.startsWith("LEDGER")
        ? rand() < 0.9
          ? "AUTHORISED"
          : "SUBMITTED"
        : null,
      amount: source === "MANUAL" && rand() < 0.5 ? `-${cents(1000, 500000)}` : cents(1000, 500000),
      currency: foreign ? "USD" : "AUD",
      currencyRate: foreign ? "0.654321" : null,
      expectedDate: rand() < 0.1 ? addDays(due, int(1, 20)) : due,
      dueDate: due,
      issueDate: addDays(due, -30),
      contactId: `C${int(0, CUSTOMERS - 1)}`,
      accountId: `acc_${int(0, 39)}`,
      probability: source === "PIPELINE" ? "0.35" : null,
    });
  }
  const purchaseOrders = Array.from({ length: 400 }, (_, i) => ({
    id: `po_${i}`,
    status: "AUTHORISED",
    total: cents(10000, 900000),
    currency: "AUD",
    currencyRate: null,
    issueDate: addDays(TODAY, -int(0, 30)),
    deliveryDate: addDays(TODAY, int(-5, 60)),
    expectedArrivalDate: null,
    contactId: `S${i % 50}`,
    accountId: "acc_3",
    suppressedReason: rand() < 0.3 ? "REFERENCE" : null,
  }));
  const salesHistory: SalesHistoryEntry[] = [];
  // The demo's mix of cadences: weekly 3%, fortnightly 5%, monthly 24%, quarterly 24%, yearly 16%,
  // irregular 28% (0).
  const mix: [number, number][] = [
    [7, 3],
    [14, 5],
    [30, 24],
    [91, 24],
    [365, 16],
    [0, 28],
  ];
  const cadences = mix.flatMap(([days, n]) => new Array<number>(n).fill(days));
  for (let c = 0; c < CUSTOMERS; c++) {
    const cadence = cadences[c % cadences.length] ?? 30;
    let day = -730 + int(0, 60);
    while (day <= 0) {
      const issueDate = addDays(TODAY, day);
      salesHistory.push({
        contactId: `C${c}`,
        issueDate,
        total: cents(5000, 200000),
        currency: "AUD",
        currencyRate: null,
        dueDate: addDays(issueDate, 14),
        paidDate: day < -20 ? addDays(issueDate, int(5, 30)) : null,
        accountId: "acc_1",
      });
      day += cadence === 0 ? int(5, 200) : Math.max(1, cadence + int(-2, 2));
    }
  }
  const recurringHistory: RecurringHistoryEntry[] = [];
  for (let d = -728; d <= 0; d += 14) {
    recurringHistory.push({
      kind: "spend",
      contactId: "PAYROLL",
      contactName: "Payroll",
      accountId: "acc_20",
      date: addDays(TODAY, d),
      dueDate: null,
      amount: "48000",
      currency: "AUD",
      currencyRate: null,
    });
  }
  for (let m = 24; m >= 1; m--) {
    const date = addDays(TODAY, -30 * m);
    recurringHistory.push({
      kind: "bill",
      contactId: "RENT",
      contactName: "Landlord",
      accountId: "acc_21",
      date,
      dueDate: addDays(date, 14),
      amount: "12000",
      currency: "AUD",
      currencyRate: null,
    });
    recurringHistory.push({
      kind: "bill",
      contactId: "SAAS",
      contactName: "Software",
      accountId: "acc_22",
      date,
      dueDate: date,
      amount: "450",
      currency: "AUD",
      currencyRate: null,
    });
  }
  const customers = Array.from({ length: CUSTOMERS }, (_, c) => ({
    contactId: `C${c}`,
    name: `Customer ${c}`,
    active: c % 10 !== 0,
  }));
  return {
    now: NOW,
    timezone: "Australia/Sydney",
    baseCurrency: "AUD",
    startingCash: "1250000",
    openItems,
    purchaseOrders,
    salesHistory,
    recurringHistory,
    customers,
    accounts,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const fmt = (xs: number[], cpu: number[]) =>
  `wall median ${median(xs).toFixed(1)} ms (max ${Math.max(...xs).toFixed(1)}), CPU median ${median(cpu).toFixed(1)} ms`;
/** Wall and CPU time of `f` (CPU time is what a loaded, shared machine distorts least). */
function timed<T>(f: () => T): { value: T; wall: number; cpu: number } {
  const c = process.cpuUsage();
  const t = performance.now();
  const value = f();
  const wall = performance.now() - t;
  const u = process.cpuUsage(c);
  return { value, wall, cpu: (u.user + u.system) / 1000 };
}

const built = performance.now();
const input = buildInput();
console.log(
  `input: ${input.openItems.length} open items, ${input.purchaseOrders.length} purchase orders, ` +
    `${input.salesHistory.length} sales history rows (${CUSTOMERS} customers), ${input.recurringHistory.length} recurring history rows ` +
    `(built in ${((performance.now() - built) / 1000).toFixed(1)} s)`,
);
const scenarios: ScenarioInput[] = [
  { id: "base", name: "Base", kind: "BASE", assumptions: {} },
  { id: "best", name: "Best", kind: "BEST", assumptions: {} },
  { id: "worst", name: "Worst", kind: "WORST", assumptions: {} },
  {
    id: "custom",
    name: "Custom",
    kind: "CUSTOM",
    assumptions: {
      paymentLagDays: 5,
      arHaircutPercent: 20,
      arHaircutAfterDays: 60,
      pipelineConversionRate: 0.5,
      billStretchDays: 7,
    },
  },
];
// Warm-up (JIT), and the digest of the outputs.
const digest = createHash("sha256");
{
  const model = buildForecastModel(input);
  for (const scenario of scenarios) {
    const result = computeForecast({ ...input, scenario }, model);
    digest.update(JSON.stringify(result));
    digest.update(JSON.stringify(learnedParameters(model, result)));
  }
}

const modelTimes = { wall: [] as number[], cpu: [] as number[] };
const perScenario = new Map<string, { wall: number[]; cpu: number[] }>();
const fullTimes = { wall: [] as number[], cpu: [] as number[] };
let last = "";
for (let run = 0; run < RUNS; run++) {
  // A fresh sales history each run, as each recompute loads one (its parsed dates and amounts
  // are kept per array: sales-history.ts).
  const fresh = { ...input, salesHistory: [...input.salesHistory] };
  const m = timed(() => buildForecastModel(fresh));
  modelTimes.wall.push(m.wall);
  modelTimes.cpu.push(m.cpu);
  for (const scenario of scenarios) {
    const r = timed(() => computeForecast({ ...input, scenario }, m.value));
    const slot = perScenario.get(scenario.kind) ?? { wall: [], cpu: [] };
    slot.wall.push(r.wall);
    slot.cpu.push(r.cpu);
    perScenario.set(scenario.kind, slot);
    if (scenario.kind === "BASE")
      last = `${r.value.lines.length} lines, ${r.value.predictions.length} predicted customers, ending cash ${r.value.endingCash}`;
  }
  const alone = { ...input, salesHistory: [...input.salesHistory] };
  const f = timed(() => computeForecast({ ...alone, scenario: scenarios[0] as ScenarioInput }));
  fullTimes.wall.push(f.wall);
  fullTimes.cpu.push(f.cpu);
}
console.log(`model (recurring + hazard fitting): ${fmt(modelTimes.wall, modelTimes.cpu)}`);
for (const [kind, x] of perScenario)
  console.log(`scenario ${kind.padEnd(6)} with shared model: ${fmt(x.wall, x.cpu)}`);
console.log(`one scenario alone (model included): ${fmt(fullTimes.wall, fullTimes.cpu)}`);
console.log(`BASE: ${last}`);
console.log(`outputs digest: ${digest.digest("hex")}`);
