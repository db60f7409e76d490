import type { FC } from "hono/jsx";
import type { ForecastVariance } from "../../services/forecast/history.ts";
import { formatAmount } from "../format.ts";
import { axisRange, shortDate } from "./cash-chart.tsx";

/** The horizons the track record offers to compare (weeks ahead the forecast was made). */
export const VARIANCE_HORIZONS = [1, 4, 13] as const;

/** One completed week of the track record at one horizon, oldest first. */
export interface VariancePoint {
  weekStart: string;
  actual: string;
  /** The forecast made `horizon` weeks ahead; null when none was kept. */
  forecast: string | null;
  madeOn: string | null;
  error: string | null;
  inflowError: string | null;
  outflowError: string | null;
}

/** The track record at one horizon, oldest week first (the chart's order). */
export function variancePoints(v: ForecastVariance, horizon: number): VariancePoint[] {
  return [...v.weeks].reverse().map((w) => {
    const f = w.forecasts.find((x) => x.horizon === horizon);
    return {
      weekStart: w.weekStart,
      actual: w.actual.closing,
      forecast: f?.closing ?? null,
      madeOn: f?.madeOn ?? null,
      error: f?.closingError ?? null,
      inflowError: f?.inflowError ?? null,
      outflowError: f?.outflowError ?? null,
    };
  });
}

const W = 760;
const H = 220;
const M = { left: 70, right: 14, top: 14, bottom: 30 };
const px = (value: string) => Number(value);

/**
 * Actual closing cash of the completed weeks (solid) against the forecast made `horizon` weeks
 * ahead of each (dots joined by a dashed line), inline SVG like the forecast chart.
 */
export const VarianceChart: FC<{ points: VariancePoint[]; horizon: number; currency: string }> = ({
  points,
  horizon,
  currency,
}) => {
  const values = points.flatMap((p) => [px(p.actual), ...(p.forecast ? [px(p.forecast)] : [])]);
  const { bottom, top, step } = axisRange(Math.min(...values), Math.max(...values));
  const innerW = W - M.left - M.right;
  const innerH = H - M.top - M.bottom;
  const x = (i: number) =>
    M.left + (points.length === 1 ? innerW / 2 : (innerW * i) / (points.length - 1));
  const y = (v: number) => M.top + innerH - ((v - bottom) / (top - bottom)) * innerH;
  const ticks: number[] = [];
  for (let t = bottom; t <= top + step / 2; t += step) ticks.push(t);
  const actualPath = points
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(px(p.actual)).toFixed(1)}`)
    .join(" ");
  const forecastPath = points
    .map((p, i) => (p.forecast ? { i, v: px(p.forecast) } : null))
    .filter((p): p is { i: number; v: number } => p !== null)
    .map((p, k) => `${k === 0 ? "M" : "L"}${x(p.i).toFixed(1)},${y(p.v).toFixed(1)}`)
    .join(" ");
  return (
    <div class="chart">
      <svg
        id="variance-chart"
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`Actual closing cash against the forecast made ${horizon} week${horizon === 1 ? "" : "s"} ahead, ${currency}`}
      >
        {ticks.map((t) => (
          <g>
            <line class="grid-line" x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} />
            <text class="axis" x={M.left - 6} y={y(t) + 4} text-anchor="end">
              {new Intl.NumberFormat("en", { notation: "compact" }).format(t)}
            </text>
          </g>
        ))}
        {points.map((p, i) => (
          <text class="axis" x={x(i)} y={H - 10} text-anchor="middle">
            {points.length > 7 && i % 2 === 1 ? "" : shortDate(p.weekStart)}
          </text>
        ))}
        <path class="line closing" d={actualPath} />
        {forecastPath ? <path class="line conservative" d={forecastPath} /> : null}
        {points.map((p, i) =>
          p.forecast ? (
            <circle
              class="point forecast-made"
              cx={x(i)}
              cy={y(px(p.forecast))}
              r="3.5"
              data-week={p.weekStart}
              data-forecast={p.forecast}
              data-actual={p.actual}
            >
              <title>
                {shortDate(p.weekStart)}: forecast {formatAmount(p.forecast)}, actual{" "}
                {formatAmount(p.actual)}
              </title>
            </circle>
          ) : null,
        )}
      </svg>
      <p class="muted small">
        <span class="key closing">━ actual closing cash</span> ·{" "}
        <span class="key conservative">
          ╍ forecast made {horizon} week{horizon === 1 ? "" : "s"} ahead
        </span>
      </p>
    </div>
  );
};
