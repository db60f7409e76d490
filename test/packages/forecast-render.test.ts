import { READ_COMMANDS } from "@cashrunway/cli";
import type { components } from "@cashrunway/client";
import { TOOL_BY_NAME } from "@cashrunway/mcp";
import { describe, expect, it } from "vitest";

type Forecast = components["schemas"]["ForecastResponse"];
type Week = components["schemas"]["ForecastWeek"];

/** A forecast week of the contract's shape; `band` adds the interval's two ends. */
function week(start: string, closing: string, band?: [string, string]): Week {
  return {
    weekStart: start,
    weekEnd: start.replace(
      /-(\d\d)$/,
      (_, d: string) => `-${String(Number(d) + 6).padStart(2, "0")}`,
    ),
    opening: "1000",
    inflow: "300",
    outflow: "100",
    net: "200",
    closing,
    ...(band ? { closingLow: band[0], closingHigh: band[1] } : {}),
    itemIds: [],
  };
}

/** Two weeks, banded, with a track record of one completed week forecast 1 and 2 weeks ahead. */
const BODY: Forecast = {
  scenarioId: "scn_base",
  scenarioName: "Base",
  computedAt: "2026-03-02T04:00:00.000Z",
  weeks: [
    week("2026-03-02", "1200", ["1100", "1290.5"]),
    week("2026-03-09", "1400", ["1210", "1600"]),
  ],
  startingCash: "1000",
  endingCash: "1400",
  minClosingCash: "1200",
  minClosingCashWeekIndex: 0,
  totalInflow: "600",
  totalOutflow: "200",
  redactedItemCount: 0,
  closingInterval: {
    level: 0.8,
    method: "adaptive conformal on backtest residuals, spread pooled over horizons",
    status: "calibrated",
    calibratedOn: "2026-03-02",
    residualCounts: [6, 6],
  },
  variance: {
    asOfDate: "2026-03-02",
    keptSince: "2026-02-16",
    weeks: [
      {
        weekStart: "2026-02-23",
        weekEnd: "2026-03-01",
        actual: { opening: "800", inflow: "300", outflow: "100", closing: "1000" },
        forecasts: [
          {
            horizon: 1,
            madeOn: "2026-02-23",
            inflow: "250",
            outflow: "100",
            closing: "950",
            closingLow: "900",
            closingHigh: "1010",
            closingError: "-50",
            inflowError: "-50",
            outflowError: "0",
            withinBand: true,
          },
          {
            horizon: 2,
            madeOn: "2026-02-16",
            inflow: "400",
            outflow: "90",
            closing: "1110",
            closingError: "110",
            inflowError: "100",
            outflowError: "-10",
          },
        ],
      },
    ],
    byHorizon: [
      { horizon: 1, weeks: 1, meanAbsoluteError: "50", bias: "-50" },
      { horizon: 2, weeks: 1, meanAbsoluteError: "110", bias: "110" },
    ],
  },
};

describe("the forecast's band and track record in the CLI and the MCP text", () => {
  const cli = READ_COMMANDS.find((c) => c.words.join(" ") === "forecast");
  if (!cli) throw new Error("no forecast command");
  const mcp = TOOL_BY_NAME.get("forecast_get");
  if (!mcp) throw new Error("no forecast_get tool");

  it("runway forecast shows the band as two columns and the track record as tables", () => {
    const text = cli.render(BODY as never, {});
    expect(text).toContain(
      [
        "Week        Opening  Inflow  Outflow  Closing  80% low  80% high",
        "----------  -------  ------  -------  -------  -------  --------",
        "2026-03-02     1000     300      100     1200     1100    1290.5",
        "2026-03-09     1000     300      100     1400     1210      1600",
      ].join("\n"),
    );
    expect(text).toContain(
      [
        "Track record (as of 2026-03-02; forecasts kept since 2026-02-16):",
        "",
        "Week        Ahead  Made on     Forecast  Actual  Error  In band",
        "----------  -----  ----------  --------  ------  -----  -------",
        "2026-02-23    1 w  2026-02-23       950    1000    -50  yes",
        "2026-02-23    2 w  2026-02-16      1110    1000    110",
        "",
        "Ahead  Weeks  Mean abs error  Bias",
        "-----  -----  --------------  ----",
        "  1 w      1              50   -50",
        "  2 w      1             110   110",
      ].join("\n"),
    );
  });

  it("runway forecast says why there is no band, and prints no track record unless asked", () => {
    const { variance: _, ...plain } = BODY;
    const unbanded = {
      ...plain,
      weeks: [week("2026-03-02", "1200")],
      closingInterval: { ...BODY.closingInterval, status: "insufficient_history" },
    };
    const text = cli.render(unbanded as never, {});
    expect(text).toContain("Week        Opening  Inflow  Outflow  Closing\n");
    expect(text).toContain("No band yet: insufficient_history.");
    expect(text).not.toContain("Track record");
    const empty = {
      ...BODY,
      variance: { asOfDate: "2026-03-02", keptSince: null, weeks: [], byHorizon: [] },
    };
    expect(cli.render(empty as never, {})).toContain(
      "Track record: no completed week has a kept forecast yet (as of 2026-03-02).",
    );
  });

  it("the forecast_get tool's text carries the band and the track record", () => {
    const lines = mcp.render(BODY as never).split("\n");
    expect(lines).toContain(
      "Closing cash band: 80% prediction interval, calibrated (adaptive conformal on backtest residuals, spread pooled over horizons).",
    );
    expect(lines).toContain("W1 2026-03-02: in 300 out 100 close 1200 (80% 1100 to 1290.5)");
    expect(lines).toContain(
      "Track record as of 2026-03-02 (closing cash error = forecast − actual): 1 w ahead: mean abs error 50, bias -50 over 1 weeks; 2 w ahead: mean abs error 110, bias 110 over 1 weeks.",
    );
    expect(lines).toContain(
      "Week 2026-02-23: actual close 1000; forecast 1 w ahead 950 (error -50, inside its band)",
    );
    const { variance: _, closingInterval: __, ...plain } = BODY;
    const text = mcp.render({ ...plain, weeks: [week("2026-03-02", "1200")] } as never);
    expect(text.split("\n")).toContain("W1 2026-03-02: in 300 out 100 close 1200");
    expect(text).not.toMatch(/band|Track record/);
  });
});
