import { DEFAULT_ORIGINS } from "../../domain/forecasting/backtest.ts";
import { MAX_VARIANCE_WEEKS, VARIANCE_WEEKS } from "../../services/forecast/history.ts";
import { defineCommand } from "../command.ts";

export const ASSUMPTION_FLAGS = [
  "based-on",
  "payment-lag",
  "ar-haircut",
  "ar-haircut-after",
  "pipeline-conversion",
  "bill-stretch",
  "receivable-timing",
] as const;

/**
 * `cashrunway forecast`:
 *   forecast recompute --org ID        every scenario, now (also after each import and daily)
 *   forecast recompute --stale         organisations whose forecast is from an earlier day (cron)
 *   forecast show --org ID [--scenario SCN]
 *   forecast explain --org ID (--week N | --invoice NUMBER | --contact NAME) [--scenario SCN]
 *       [--include-sensitive]   the lines behind a week, an invoice or a contact, and exclusions
 *   forecast variance --org ID [--weeks N] [--categories [--horizon H] [--include-sensitive]]
 *       past weeks' kept forecasts against actual cash; with --categories, by ledger account
 */
export const forecastCommand = defineCommand({
  name: "forecast",
  summary: "the 13-week cash forecast: recompute, show, explain, track record",
  flags: {
    org: { value: "ID", description: "the organisation" },
    stale: {
      description: "recompute: every organisation whose forecast is from an earlier day (cron)",
    },
    scenario: {
      value: "SCN",
      description: "show, explain: the scenario (default BASE; scenario list shows the ids)",
    },
    week: { value: "N", description: "explain: the week, 1 to 13" },
    invoice: {
      value: "NUMBER",
      description: "explain: an invoice, bill or purchase order by its number",
    },
    contact: {
      value: "NAME",
      description: "explain: a customer or supplier by name (exact, else every name containing it)",
    },
    "include-sensitive": {
      description:
        "explain, variance: name sensitive contacts' items and sensitive accounts (hidden by default, as for a key without READ_SENSITIVE)",
    },
    categories: {
      description:
        "variance: each week by ledger account, forecast against actual (rows sum to the week)",
    },
    horizon: {
      value: "H",
      description:
        "variance --categories: the forecast made H weeks ahead, 1 to 13 (default 1: made during the week)",
    },
    weeks: {
      value: "N",
      description: `variance: completed weeks to show, 1 to ${MAX_VARIANCE_WEEKS} (default ${VARIANCE_WEEKS})`,
    },
  },
  subcommands: [
    {
      name: "recompute",
      summary: "recompute and store every scenario's forecast now",
      usage: [
        "forecast recompute (--org ID | --stale)        recompute and store every scenario's forecast",
      ],
      flags: ["org", "stale"],
      examples: ["forecast recompute --org org_tpxprxz2g0095ksv8z2r", "forecast recompute --stale"],
    },
    {
      name: "show",
      summary: "the latest stored forecast, week by week",
      usage: ["forecast show --org ID [--scenario SCN]        the latest stored forecast"],
      flags: ["org", "scenario"],
      examples: ["forecast show --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "explain",
      summary: "the items behind a week, an invoice or a contact, what was excluded and why",
      usage: [
        "forecast explain --org ID (--week N | --invoice NUMBER | --contact NAME) [--scenario SCN] [--include-sensitive]   the items behind a week, an invoice or a contact",
      ],
      flags: ["org", "week", "invoice", "contact", "include-sensitive", "scenario"],
      examples: [
        "forecast explain --org org_tpxprxz2g0095ksv8z2r --week 3",
        "forecast explain --org org_tpxprxz2g0095ksv8z2r --invoice INV-0042",
        'forecast explain --org org_tpxprxz2g0095ksv8z2r --contact "Harbourside"',
      ],
    },
    {
      name: "variance",
      summary: "the track record: past weeks' forecasts against actual cash",
      usage: [
        "forecast variance --org ID [--weeks N] [--categories [--horizon H] [--include-sensitive]]   forecast made N weeks ahead vs actual cash, by account",
      ],
      flags: ["org", "weeks", "categories", "horizon", "include-sensitive"],
      examples: [
        "forecast variance --org org_tpxprxz2g0095ksv8z2r --weeks 4",
        "forecast variance --org org_tpxprxz2g0095ksv8z2r --weeks 1 --categories --horizon 4",
      ],
    },
  ],
  async run(args, ctx) {
    const { runForecast } = await import("./forecast-run.ts");
    await runForecast(args, ctx);
  },
});

/**
 * `cashrunway scenario`: custom scenarios (a clone of BASE, BEST or WORST with overrides).
 *   scenario list --org ID
 *   scenario create --org ID --name N [--based-on BASE|BEST|WORST] [--payment-lag D]
 *       [--ar-haircut PCT --ar-haircut-after D] [--pipeline-conversion R] [--bill-stretch D]
 *       [--receivable-timing history|due]
 *   scenario edit SCN --org ID [--name N] [same flags; `none` removes a setting]
 *   scenario delete SCN --org ID
 * Creating or editing recomputes the organisation's forecasts.
 */
export const scenarioCommand = defineCommand({
  name: "scenario",
  summary: "custom forecast scenarios: a clone of BASE, BEST or WORST with overrides",
  flags: {
    org: { value: "ID", description: "the organisation" },
    name: { value: "N", description: "the scenario's name" },
    "based-on": {
      value: "K",
      description: "the built-in scenario it starts from: BASE, BEST or WORST",
      choices: ["BASE", "BEST", "WORST"],
    },
    "payment-lag": {
      value: "D",
      description: "days added to every receivable's expected date (negative: earlier)",
    },
    "ar-haircut": {
      value: "PCT",
      description:
        "percentage (0 to 100) taken off receivables overdue by more than --ar-haircut-after days",
    },
    "ar-haircut-after": { value: "D", description: "the days overdue --ar-haircut starts at" },
    "pipeline-conversion": {
      value: "R",
      description:
        "the share (0 to 1) of each pipeline item expected to convert (default: each item's own probability)",
    },
    "bill-stretch": { value: "D", description: "bills are paid D days after their due date" },
    "receivable-timing": {
      value: "history|due",
      description:
        "receivables without an expected date: the customer's payment habit (history) or the due date (due)",
      choices: ["history", "due", "none"],
    },
  },
  subcommands: [
    {
      name: "list",
      summary: "the organisation's scenarios and their assumptions",
      usage: ["scenario list --org ID"],
      flags: ["org"],
      examples: ["scenario list --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "create",
      summary: "a custom scenario; the forecasts are recomputed",
      usage: [
        "scenario create --org ID --name N [--based-on K] [--payment-lag D] [--ar-haircut PCT --ar-haircut-after D] [--pipeline-conversion R] [--bill-stretch D] [--receivable-timing history|due]",
      ],
      flags: ["org", "name", ...ASSUMPTION_FLAGS],
      examples: [
        'scenario create --org org_tpxprxz2g0095ksv8z2r --name "Slow payers" --based-on BASE --payment-lag 14',
      ],
    },
    {
      name: "edit",
      summary: "change a custom scenario (none removes a setting); the forecasts are recomputed",
      usage: ["scenario edit SCN --org ID [--name N] [the same flags; none removes one]"],
      flags: ["org", "name", ...ASSUMPTION_FLAGS],
      examples: [
        "scenario edit scn_5v8k2m9q4x7b3n6c1d0f --org org_tpxprxz2g0095ksv8z2r --payment-lag none",
      ],
    },
    {
      name: "delete",
      summary: "delete a custom scenario",
      usage: ["scenario delete SCN --org ID"],
      flags: ["org"],
      examples: ["scenario delete scn_5v8k2m9q4x7b3n6c1d0f --org org_tpxprxz2g0095ksv8z2r"],
    },
  ],
  async run(args, ctx) {
    const { runScenario } = await import("./forecast-run.ts");
    await runScenario(args, ctx);
  },
});

/**
 * `cashrunway backtest --org ID [--weeks N]`: replays the served engine at the last N Mondays
 * (default 39) and prints, per horizon, BASE's error against both naive baselines; the result is
 * stored as the organisation's latest backtest.
 */
export const backtestCommand = defineCommand({
  name: "backtest",
  summary: "forecast accuracy: replay the served forecast on past weeks against what happened",
  flags: {
    org: { value: "ID", description: "the organisation" },
    weeks: {
      value: "N",
      description: `how many past Mondays to replay as origins, 1 to 104 (default ${DEFAULT_ORIGINS})`,
    },
  },
  usage: [
    `backtest --org ID [--weeks N]   forecast error per horizon over the last N origins (default ${DEFAULT_ORIGINS})`,
  ],
  examples: ["backtest --org org_tpxprxz2g0095ksv8z2r --json"],
  async run(args, ctx) {
    const { runBacktest } = await import("./forecast-run.ts");
    await runBacktest(args, ctx);
  },
});
