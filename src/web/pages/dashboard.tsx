import type { FC } from "hono/jsx";
import { Layout } from "../components/layout.tsx";
import type { ForecastSeries } from "../dashboard/forecast-series.ts";
import type { CashInCurrency, DailyBriefView } from "../data/dashboard.ts";
import { formatAmount, formatInstant } from "../format.ts";
import type { CurrentOrg, WebView } from "../request.ts";

const W = 760;
const H = 290;
const M = { left: 86, right: 18, top: 16, bottom: 46 };

/**
 * Pixel positions are the only place amounts become floats: a chart coordinate, never a
 * figure anyone reads (labels and tables use the exact strings).
 */
function px(value: string): number {
  return Number(value);
}

/** A round axis step (1, 2 or 5 times a power of ten) giving about five intervals. */
function niceStep(span: number): number {
  const raw = (span > 0 ? span : 1) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const n = raw / magnitude;
  return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * magnitude;
}

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/** The 13-week chart as inline SVG (no script, no external library). */
export const ForecastChart: FC<{ series: ForecastSeries; currency: string }> = ({
  series,
  currency,
}) => {
  const lo = px(series.min);
  const hi = px(series.max);
  const step = niceStep(hi - lo);
  const bottom = Math.floor(lo / step) * step;
  const top = Math.max(Math.ceil(hi / step) * step, bottom + step);
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const n = series.points.length;
  const x = (i: number) => M.left + (n <= 1 ? plotW / 2 : (plotW * i) / (n - 1));
  const y = (v: number) => M.top + ((top - v) / (top - bottom)) * plotH;
  const line = (pick: (p: ForecastSeries["points"][number]) => string) =>
    series.points.map((p, i) => `${x(i).toFixed(1)},${y(px(pick(p))).toFixed(1)}`).join(" ");
  const ticks = Array.from(
    { length: Math.round((top - bottom) / step) + 1 },
    (_, i) => bottom + step * i,
  );
  return (
    <div class="chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`13-week closing cash forecast in ${currency}`}
      >
        {ticks.map((t) => (
          <g>
            <line
              x1={M.left}
              x2={W - M.right}
              y1={y(t)}
              y2={y(t)}
              stroke="#e3e7ec"
              stroke-width="1"
            />
            <text x={M.left - 8} y={y(t) + 4} text-anchor="end" font-size="11" fill="#5f6b7a">
              {compact.format(t)}
            </text>
          </g>
        ))}
        {bottom < 0 && top > 0 ? (
          <line
            x1={M.left}
            x2={W - M.right}
            y1={y(0)}
            y2={y(0)}
            stroke="#9aa5b1"
            stroke-width="1.2"
          />
        ) : null}
        {series.points.map((p, i) => (
          <text x={x(i)} y={H - M.bottom + 18} text-anchor="middle" font-size="10.5" fill="#5f6b7a">
            {`W${i + 1}`}
            <title>{`Week of ${p.weekStart}`}</title>
          </text>
        ))}
        <polyline
          points={line((p) => p.conservative)}
          fill="none"
          stroke="#b45309"
          stroke-width="2"
          stroke-dasharray="6 4"
        />

        <polyline points={line((p) => p.closing)} fill="none" stroke="#0f6b5c" stroke-width="2.6" />
        {/* Drawn over closing: where the two coincide the dotted line stays visible. */}
        <polyline
          points={line((p) => p.optimistic)}
          fill="none"
          stroke="#2563eb"
          stroke-width="2"
          stroke-dasharray="2 4"
        />
        {series.points.map((p, i) => (
          <circle cx={x(i)} cy={y(px(p.closing))} r="3" fill="#0f6b5c">
            <title>{`Week of ${p.weekStart}: closing ${formatAmount(p.closing)} ${currency}; conservative ${formatAmount(p.conservative)}; optimistic ${formatAmount(p.optimistic)}`}</title>
          </circle>
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
      </div>
    </div>
  );
};

const BriefSection: FC<{ title: string; s: DailyBriefView["mainDriver"] }> = ({ title, s }) => (
  <section>
    <div class="muted">{title}</div>
    <h3>{s.headline}</h3>
    {/* Shown as text: the markdown is escaped, never injected as HTML. */}
    <div>{s.bodyMarkdown}</div>
  </section>
);

/** The dashboard at `/`. */
export const DashboardPage: FC<{
  view: WebView;
  org: CurrentOrg;
  cash: CashInCurrency[];
  forecast: { series: ForecastSeries; computedAt: string; currency: string } | null;
  brief: DailyBriefView | null;
}> = ({ view, org, cash, forecast, brief }) => (
  <Layout title="Dashboard" view={view} active="dashboard">
    <h1>{org.name}</h1>
    <p class="lead">
      Cash today, the 13-week forecast and today's brief: the same rows the agent API serves.
    </p>
    <h2>Cash today</h2>
    {cash.length === 0 ? (
      <div class="empty" id="cash-empty">
        No bank accounts yet: import the ledger to see cash.
      </div>
    ) : (
      <div class="grid" id="cash-today">
        {cash.map((c) => (
          <div class="panel stat">
            <div class="label">
              {c.currency} · {c.accounts} account{c.accounts === 1 ? "" : "s"}
            </div>
            <div class="value">
              {formatAmount(c.total)} <span class="muted">{c.currency}</span>
            </div>
            <div class="muted">
              Reconciled balances, synced {formatInstant(c.syncedAt, org.timezone, { zone: true })}
            </div>
          </div>
        ))}
      </div>
    )}
    <h2>13-week forecast</h2>
    <div class="panel" id="forecast">
      {forecast ? (
        <div>
          <div class="grid">
            <div class="stat">
              <div class="label">Ending cash (week 13)</div>
              <div class="value">
                {formatAmount(forecast.series.endingCash)}{" "}
                <span class="muted">{forecast.currency}</span>
              </div>
            </div>
            {forecast.series.lowestClosing ? (
              <div class="stat">
                <div class="label">Lowest closing</div>
                <div class="value">{formatAmount(forecast.series.lowestClosing.value)}</div>
                <div class="muted">week of {forecast.series.lowestClosing.weekStart}</div>
              </div>
            ) : null}
          </div>
          <ForecastChart series={forecast.series} currency={forecast.currency} />
          <p class="muted">
            Computed {formatInstant(forecast.computedAt, org.timezone, { zone: true })}
          </p>
        </div>
      ) : (
        <div class="empty">No forecast computed yet.</div>
      )}
    </div>
    <h2>Today's brief</h2>
    <div class="panel brief" id="brief">
      {brief ? (
        <div>
          <BriefSection title="Main driver" s={brief.mainDriver} />
          <BriefSection title="Risk signal" s={brief.riskSignal} />
          <BriefSection title="Recommended action" s={brief.recommendedAction} />
          <p class="muted">
            Brief for {brief.asOfDate} ({brief.generatorTier}), generated{" "}
            {formatInstant(brief.generatedAt, org.timezone, { zone: true })}
          </p>
        </div>
      ) : (
        <div class="empty">No daily brief yet. Briefs are generated once a day (06:00 UTC).</div>
      )}
    </div>
  </Layout>
);

/** The dashboard of a user who belongs to no organisation (e.g. a partner user). */
export const NoOrgPage: FC<{ view: WebView }> = ({ view }) => (
  <Layout title="Dashboard" view={view} active="dashboard">
    <h1>Welcome</h1>
    <div class="empty">
      You are not a member of any organisation yet. Partner users find their clients and keys under{" "}
      <a href="/settings/partners">Partners</a>.
    </div>
  </Layout>
);
