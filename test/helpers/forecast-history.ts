import type { Db } from "../../src/db/client.ts";
import { dailyCash, forecastAtOrigin, instantOn } from "../../src/domain/forecasting/backtest.ts";
import { addDays } from "../../src/domain/forecasting/dates.ts";
import { loadBacktestData } from "../../src/services/forecast/backtest.ts";
import { recordForecastHistory } from "../../src/services/forecast/history.ts";

/**
 * Keeps, for each of `origins` (local dates before today), the BASE forecast the engine would
 * have served that day (the backtest's replay of the books as they stood then), as if the
 * service had kept it: a track record to test and photograph without waiting weeks. The
 * service itself never back-fills (docs/forecast-history.md).
 */
export async function keepReplayedForecasts(
  db: Db,
  orgId: string,
  now: Date,
  origins: readonly string[],
): Promise<void> {
  const data = await loadBacktestData(db, orgId, now);
  const first = [...origins].sort()[0] ?? data.today;
  const cash = dailyCash(data, addDays(first, -1), data.today);
  for (const origin of origins) {
    const result = forecastAtOrigin(data, origin, cash.get(origin) ?? 0);
    await recordForecastHistory(db, {
      orgId,
      asOfDate: origin,
      scenarioId: "scn_replayed",
      computedAt: instantOn(origin, data.books.timezone),
      startingCash: result.startingCash,
      weeks: result.weeks,
    });
  }
}
