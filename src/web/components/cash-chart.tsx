import type { FC } from "hono/jsx";
import type { ForecastPoint, ForecastSeries } from "../dashboard/forecast-series.ts";
import { formatAmount } from "../format.ts";

const W = 760;
const LINE_H = 250;
const BARS_H = 90;
const H = LINE_H + BARS_H + 34;
const M = { left: 70, right: 14, top: 14 };

/**
 * Pixel positions are the only place amounts become floats: a chart coordinate, never a figure
 * anyone reads (labels, titles and the table use the exact strings).
 */
const px = (value: string) => Number(value);

/** A round axis step (1, 2, 2.5 or 5 times a power of ten) giving about `intervals` intervals. */
export function niceStep(span: number, intervals = 5): number {
  const raw = (span > 0 ? span : 1) / intervals;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const n = raw / magnitude;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10) * magnitude;
}

/**
 * The axis of the closing line: from a round value just under the lowest figure to one just
 * over the highest, not from zero, so a week-to-week movement of a few percent is visible.
 * A threshold inside or near the range is included so its line can be drawn.
 */
export function axisRange(
  min: number,
  max: number,
  threshold?: number,
): { bottom: number; top: number; step: number } {
  let lo = min;
  let hi = max;
  if (threshold !== undefined && threshold > 0) {
    lo = Math.min(lo, threshold);
    hi = Math.max(hi, threshold);
  }
  if (hi - lo < Math.abs(hi) * 0.02) {
    // A flat line: give it some room rather than magnifying cents.
    const pad = Math.max(Math.abs(hi) * 0.05, 1);
    lo -= pad;
    hi += pad;
  }
  const step = niceStep(hi - lo, 5);
  const bottom = Math.floor(lo / step) * step;
  const top = Math.max(Math.ceil(hi / step) * step, bottom + step);
  return { bottom, top, step };
}

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `2026-11-23` → `23 Nov`. */
export function shortDate(date: string): string {
  const [, m, d] = date.split("-");
  return `${Number(d)} ${MONTHS[Number(m) - 1] ?? ""}`;
}

/**
 * The 13-week chart as inline SVG (no script, no library): the closing cash line with its
 * conservative and optimistic bounds, the forecast's prediction band where every week has one,
 * the owner's threshold, and the weekly inflow and outflow bars beneath on their own scale.
 * Every week's point carries its date and exact closing (`data-week-start`, `data-closing`).
 */
export const CashChart: FC<{
  series: ForecastSeries;
  currency: string;
  threshold?: string | undefined;
  scenarioName?: string | undefined;
}> = ({ series, currency, threshold, scenarioName }) => {
  const t = threshold !== undefined && px(threshold) > 0 ? px(threshold) : undefined;
  const { bottom, top, step } = axisRange(px(series.min), px(series.max), t);
  const plotW = W - M.left - M.right;
  const n = series.points.length;
  const slot = plotW / Math.max(n, 1);
  const x = (i: number) => M.left + slot * (i + 0.5);
  const y = (v: number) => M.top + ((top - v) / (top - bottom)) * (LINE_H - M.top);
  const line = (pick: (p: ForecastPoint) => string) =>
    series.points.map((p, i) => `${x(i).toFixed(1)},${y(px(pick(p))).toFixed(1)}`).join(" ");
  const ticks = Array.from(
    { length: Math.round((top - bottom) / step) + 1 },
    (_, i) => bottom + step * i,
  );
  const banded = n > 0 && series.points.every((p) => p.band);
  const band = banded
    ? [
        ...series.points.map(
          (p, i) => `${x(i).toFixed(1)},${y(px(p.band?.high ?? p.closing)).toFixed(1)}`,
        ),
        ...series.points
          .map((p, i) => `${x(i).toFixed(1)},${y(px(p.band?.low ?? p.closing)).toFixed(1)}`)
          .reverse(),
      ].join(" ")
    : null;
  const barsTop = LINE_H + 18;
  const flowMax = Math.max(px(series.maxFlow), 1);
  const barH = (v: string) => (px(v) / flowMax) * (BARS_H - 8);
  const barW = Math.max(Math.min(slot * 0.32, 18), 2);
  return (
    <div class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`13-week closing cash${scenarioName ? ` (${scenarioName})` : ""} in ${currency}, with weekly inflows and outflows`}
      >
        {ticks.map((v) => (
          <g>
            <line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} class="grid-line" />
            <text x={M.left - 6} y={y(v) + 4} text-anchor="end" class="axis">
              {compact.format(v)}
            </text>
          </g>
        ))}
        {bottom < 0 && top > 0 ? (
          <line x1={M.left} x2={W - M.right} y1={y(0)} y2={y(0)} class="zero-line" />
        ) : null}
        {band ? <polygon points={band} class="band" data-band="" /> : null}
        {t !== undefined ? (
          <g>
            <line x1={M.left} x2={W - M.right} y1={y(t)} y2={y(t)} class="threshold-line" />
            <text x={W - M.right} y={y(t) - 4} text-anchor="end" class="axis">
              {`threshold ${compact.format(t)}`}
            </text>
          </g>
        ) : null}
        <polyline points={line((p) => p.conservative)} class="line conservative" />
        <polyline points={line((p) => p.closing)} class="line closing" />
        {/* Drawn over closing: where the two coincide the dotted line stays visible. */}
        <polyline points={line((p) => p.optimistic)} class="line optimistic" />
        {series.points.map((p, i) => (
          <circle
            cx={x(i)}
            cy={y(px(p.closing))}
            r="3.2"
            class="point"
            data-week-start={p.weekStart}
            data-closing={p.closing}
          >
            <title>{`Week of ${p.weekStart}: closing ${formatAmount(p.closing)} ${currency}; conservative ${formatAmount(p.conservative)}; optimistic ${formatAmount(p.optimistic)}${p.band ? `; likely between ${formatAmount(p.band.low)} and ${formatAmount(p.band.high)}` : ""}`}</title>
          </circle>
        ))}
        <line
          x1={M.left}
          x2={W - M.right}
          y1={barsTop + BARS_H}
          y2={barsTop + BARS_H}
          class="zero-line"
        />
        <text x={M.left - 6} y={barsTop + 10} text-anchor="end" class="axis">
          {compact.format(flowMax)}
        </text>
        {series.points.map((p, i) => (
          <g>
            <rect
              x={x(i) - barW - 1}
              y={barsTop + BARS_H - barH(p.inflow)}
              width={barW}
              height={barH(p.inflow)}
              class="bar inflow"
            >
              <title>{`Week of ${p.weekStart}: inflow ${formatAmount(p.inflow)} ${currency}`}</title>
            </rect>
            <rect
              x={x(i) + 1}
              y={barsTop + BARS_H - barH(p.outflow)}
              width={barW}
              height={barH(p.outflow)}
              class="bar outflow"
            >
              <title>{`Week of ${p.weekStart}: outflow ${formatAmount(p.outflow)} ${currency}`}</title>
            </rect>
            <text x={x(i)} y={H - 6} text-anchor="middle" class="axis date">
              {shortDate(p.weekStart)}
            </text>
          </g>
        ))}
      </svg>
      <div class="legend">
        <span>
          <span class="swatch closing"></span>Closing cash
        </span>
        <span>
          <span class="swatch conservative"></span>Conservative (guaranteed inflows only)
        </span>
        <span>
          <span class="swatch optimistic"></span>Optimistic (with predicted orders)
        </span>
        {banded ? (
          <span>
            <span class="swatch band"></span>80% prediction band
          </span>
        ) : null}
        <span>
          <span class="swatch inflow"></span>Inflow
        </span>
        <span>
          <span class="swatch outflow"></span>Outflow
        </span>
      </div>
    </div>
  );
};

/** A 12-week sparkline (inline SVG) of decimal strings, oldest first. */
export const Sparkline: FC<{ values: readonly string[]; label: string }> = ({ values, label }) => {
  const w = 120;
  const h = 32;
  const nums = values.map(px);
  const lo = Math.min(...nums, 0);
  const hi = Math.max(...nums, 0);
  const span = hi - lo || 1;
  const points = nums
    .map((v, i) => {
      const sx = nums.length <= 1 ? w / 2 : (w * i) / (nums.length - 1);
      return `${sx.toFixed(1)},${(h - 2 - ((v - lo) / span) * (h - 4)).toFixed(1)}`;
    })
    .join(" ");
  return (
    <svg viewBox={`0 0 ${w} ${h}`} class="sparkline" role="img" aria-label={label}>
      <polyline points={points} class="line closing" />
    </svg>
  );
};
