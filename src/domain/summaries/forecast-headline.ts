import { canonical, money } from "../money.ts";

/** The 13-week forecast as the daily summary and the brief read it. */
export interface ForecastView {
  startingCash: string;
  endingCash: string;
  weeks: readonly { weekStart: string; weekEnd: string; closing: string }[];
}

export interface ForecastHeadline {
  endingCash: string;
  minClosingCash: string;
  minClosingWeekStart: string;
  breakEvenDate: string | null;
}

/**
 * Ending cash, the lowest closing (first week on a tie) and the break-even date: the end of the
 * first week whose closing is back at or above the starting cash after an earlier week closed
 * below it, i.e. when the cumulative net cash flow since today returns to zero. Null when no
 * week closes below the starting cash (nothing to recover) or the forecast never recovers.
 * Null altogether for a forecast without weeks.
 */
export function forecastHeadline(f: ForecastView): ForecastHeadline | null {
  const first = f.weeks[0];
  if (!first) return null;
  let low = first;
  for (const w of f.weeks) if (money(w.closing).lt(low.closing)) low = w;
  const start = money(f.startingCash);
  let dipped = false;
  let breakEvenDate: string | null = null;
  for (const w of f.weeks) {
    const closing = money(w.closing);
    if (closing.lt(start)) dipped = true;
    else if (dipped) {
      breakEvenDate = w.weekEnd;
      break;
    }
  }
  return {
    endingCash: canonical(f.endingCash),
    minClosingCash: canonical(low.closing),
    minClosingWeekStart: low.weekStart,
    breakEvenDate,
  };
}
