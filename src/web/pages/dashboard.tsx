import type { FC } from "hono/jsx";
import { slugify } from "../../domain/brief/text.ts";
import type { BriefRef } from "../../domain/brief/types.ts";
import { canonical, money } from "../../domain/money.ts";
import type { CashInCurrency } from "../../services/bank-accounts/cash-today.ts";
import {
  type ForecastVariance,
  NO_ACCOUNT_NAME,
  type VarianceWeek,
} from "../../services/forecast/history.ts";
import { AGEING_BUCKETS, type ReceivablesAgeing } from "../../services/receivables/ageing.ts";
import type { LedgerPanel } from "../../services/status/ledger-panel.ts";
import type { SummaryTopContact } from "../../services/summaries/ledger-summary.ts";
import { CashChart, Sparkline, shortDate } from "../components/cash-chart.tsx";
import { CsrfField, Layout, Notice } from "../components/layout.tsx";
import { LedgerConnectionPanel } from "../components/ledger-panel.tsx";
import { VARIANCE_HORIZONS, VarianceChart, variancePoints } from "../components/variance-chart.tsx";
import type { ForecastSeries, ForecastWeekInput } from "../dashboard/forecast-series.ts";
import { type Block, type Inline, parseMarkdown } from "../dashboard/markdown.ts";
import type { BurnRunway, RunwayWeeks } from "../dashboard/runway.ts";
import type { DailyBriefView } from "../data/dashboard.ts";
import { formatAmount, formatInstant } from "../format.ts";
import type { CurrentOrg, WebView } from "../request.ts";

/** The forecast of the scenario shown, as the page needs it. */
export interface ForecastView {
  scenarioId: string;
  scenarioName: string;
  scenarioKind: string;
  series: ForecastSeries;
  weeks: ForecastWeekInput[];
  computedAt: string;
  currency: string;
}

export interface KpiTile {
  key: string;
  label: string;
  /** The latest 4 full weeks' total. */
  latest: string;
  weekly: string[];
  /** Latest 4 weeks against the 4 before, as a fraction; null without a base. */
  change: number | null;
  /** Whether a rise is good news (receipts) or bad (spending). */
  riseIsGood: boolean;
}

export interface DashboardModel {
  view: WebView;
  org: CurrentOrg;
  canManage: boolean;
  cash: CashInCurrency[];
  scenarios: { id: string; name: string; kind: string }[];
  forecast: ForecastView | null;
  /** Runway from the BASE forecast (whatever scenario is shown); null without one. */
  runway: RunwayWeeks | null;
  threshold: string;
  burn: BurnRunway;
  tiles: KpiTile[];
  notes: string[];
  ageing: ReceivablesAgeing;
  financialYear: { from: string; to: string };
  topCustomers: SummaryTopContact[];
  topSuppliers: SummaryTopContact[];
  brief: DailyBriefView | null;
  ledger: LedgerPanel;
  /** The BASE forecast's track record, and the horizon shown (`?horizon=`). */
  variance: ForecastVariance;
  horizon: number;
  notice?: string | undefined;
}

/** The week's largest outflows by account, then its inflow: what drives a low week. */
function drivers(week: ForecastWeekInput | undefined): { name: string; amount: string }[] {
  if (!week?.categories) return [];
  return Object.values(week.categories.accounts)
    .filter((a) => a.outflow !== undefined && Number(a.outflow) > 0)
    .sort((a, b) => Number(b.outflow) - Number(a.outflow))
    .slice(0, 3)
    .map((a) => ({ name: a.name, amount: a.outflow ?? "0" }));
}

const pct = (x: number) => `${x > 0 ? "+" : x < 0 ? "−" : ""}${Math.abs(x * 100).toFixed(0)}%`;

const RunwayPanel: FC<{ m: DashboardModel; currency: string }> = ({ m, currency }) => {
  const r = m.runway;
  const limit = Number(m.threshold) > 0 ? `${formatAmount(m.threshold)} ${currency}` : "zero";
  return (
    <div class="panel stat" id="runway">
      <div class="label">Runway (Base forecast)</div>
      {r === null ? (
        <div class="value">—</div>
      ) : r.kind === "beyond" ? (
        <div class="value" data-runway-weeks="beyond">
          Beyond {r.horizonWeeks} weeks
        </div>
      ) : (
        <div class="value" data-runway-weeks={String(r.weeks)}>
          {r.weeks} week{r.weeks === 1 ? "" : "s"}
        </div>
      )}
      <div class="muted">
        {r === null
          ? "No Base forecast yet."
          : r.kind === "beyond"
            ? `Closing cash stays at or above ${limit} in every forecast week.`
            : `Closing cash falls below ${limit} in week ${r.weekNumber} (week of ${r.weekStart}: ${formatAmount(r.closing)}).`}
      </div>
      {m.canManage ? (
        <form method="post" action="/settings/runway" class="inline threshold">
          <CsrfField token={m.view.csrfToken} orgId={m.org.id} />
          <label for="threshold" class="muted">
            Threshold ({currency})
          </label>
          <input
            id="threshold"
            name="threshold"
            inputmode="decimal"
            value={m.threshold}
            size={10}
            required
          />
          <button type="submit" class="small secondary">
            Set
          </button>
        </form>
      ) : null}
    </div>
  );
};

const BurnPanel: FC<{ b: BurnRunway; currency: string; cashNote: string | null }> = ({
  b,
  currency,
  cashNote,
}) => (
  <div class="panel stat" id="burn">
    <div class="label">Months at current net burn</div>
    <div class="value" data-burn-months={b.months ?? "none"}>
      {b.months !== null ? `${b.months} months` : "Not burning"}
    </div>
    <details>
      <summary>How is this computed?</summary>
      <p class="muted">
        Over the last {b.weeks} full weeks, customers paid {formatAmount(b.receipts)} and spending
        was {formatAmount(b.spending)} {currency}: a net burn of {formatAmount(b.netBurn)}, or{" "}
        {formatAmount(b.monthlyBurn)} a month (÷ {b.weeks} weeks × 52 ÷ 12).{" "}
        {b.months !== null
          ? `Cash today, ${formatAmount(b.cash)}, divided by ${formatAmount(b.monthlyBurn)} gives ${b.months} months.`
          : "Cash did not shrink over those weeks, so there is no burn to divide by."}
        {cashNote ? ` ${cashNote}` : ""}
      </p>
    </details>
  </div>
);

const LowestWeek: FC<{ f: ForecastView }> = ({ f }) => {
  const low = f.series.lowestClosing;
  if (!low) return null;
  const index = f.weeks.findIndex((w) => w.weekStart === low.weekStart);
  const week = f.weeks[index];
  const top = drivers(week);
  return (
    <div class="panel stat" id="lowest-week">
      <div class="label">Lowest week ({f.scenarioName})</div>
      <div class="value">{formatAmount(low.value)}</div>
      <div class="muted">
        <a href={`#week-${index + 1}`}>Week {index + 1}</a>, week of {low.weekStart}
        {week ? `: ${formatAmount(week.inflow)} in, ${formatAmount(week.outflow)} out` : ""}
      </div>
      {top.length > 0 ? (
        <ul class="drivers">
          {top.map((d) => (
            <li>
              {d.name}: {formatAmount(d.amount)} out
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

const ScenarioPicker: FC<{ m: DashboardModel }> = ({ m }) =>
  m.scenarios.length > 1 ? (
    <form method="get" action="/" class="inline scenario-picker">
      <label for="scenario" class="muted">
        Scenario
      </label>
      <select id="scenario" name="scenario" data-autosubmit="">
        {m.scenarios.map((s) => (
          <option value={s.id} selected={s.id === m.forecast?.scenarioId}>
            {s.name}
          </option>
        ))}
      </select>
      <button type="submit" class="small secondary" data-no-js="">
        Show
      </button>
      <a href="/settings/scenarios" class="small">
        Manage scenarios
      </a>
    </form>
  ) : null;

const WeeksTable: FC<{ f: ForecastView }> = ({ f }) => (
  <details class="weeks">
    <summary>Week by week</summary>
    <div class="table-wrap">
      <table id="forecast-weeks">
        <thead>
          <tr>
            <th>Week</th>
            <th class="num">Inflow</th>
            <th class="num">Outflow</th>
            <th class="num">Closing</th>
          </tr>
        </thead>
        <tbody>
          {f.series.points.map((p, i) => (
            <tr id={`week-${i + 1}`}>
              <td>
                <span class="nowrap">W{i + 1}</span>{" "}
                <span class="nowrap">{shortDate(p.weekStart)}</span>
              </td>
              <td class="num">{formatAmount(p.inflow)}</td>
              <td class="num">{formatAmount(p.outflow)}</td>
              <td class="num">{formatAmount(p.closing)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </details>
);

/**
 * The last completed week by ledger account: the forecast made `horizon` weeks ahead against
 * the money that moved, the rows summing to the week's totals (the API's category rows).
 */
const CategoryVariance: FC<{ week: VarianceWeek | undefined; horizon: number }> = ({
  week,
  horizon,
}) => {
  if (!week) return null;
  const f = week.forecasts.find((x) => x.horizon === horizon);
  const actualOf = new Map((week.actual.categories ?? []).map((c) => [c.accountId, c] as const));
  const ahead = `${horizon} week${horizon === 1 ? "" : "s"} ahead`;
  if (!f?.categories) {
    return (
      <p class="muted small" id="variance-categories-empty">
        Week of {shortDate(week.weekStart)} by account: no forecast made {ahead} was kept with its
        accounts.
      </p>
    );
  }
  return (
    <details class="weeks" open id="variance-categories" data-week={week.weekStart}>
      <summary>
        Week of {shortDate(week.weekStart)} by account (forecast made {ahead}, on{" "}
        {shortDate(f.madeOn)})
      </summary>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Account</th>
              <th class="num">Forecast in</th>
              <th class="num">Actual in</th>
              <th class="num">Forecast out</th>
              <th class="num">Actual out</th>
              <th class="num">Difference</th>
            </tr>
          </thead>
          <tbody>
            {f.categories.map((c) => {
              const a = actualOf.get(c.accountId);
              return (
                <tr data-account={c.accountId ?? ""} data-net-error={c.netError}>
                  <td>{c.name}</td>
                  <td class="num">{formatAmount(c.inflow)}</td>
                  <td class="num">{formatAmount(a?.inflow ?? "0")}</td>
                  <td class="num">{formatAmount(c.outflow)}</td>
                  <td class="num">{formatAmount(a?.outflow ?? "0")}</td>
                  <td class="num">{formatAmount(c.netError)}</td>
                </tr>
              );
            })}
          </tbody>
          <tfoot>
            <tr data-account="total">
              <th>Total</th>
              <th class="num">{formatAmount(f.inflow)}</th>
              <th class="num">{formatAmount(week.actual.inflow)}</th>
              <th class="num">{formatAmount(f.outflow)}</th>
              <th class="num">{formatAmount(week.actual.outflow)}</th>
              <th class="num">
                {formatAmount(canonical(money(f.inflowError).minus(f.outflowError)))}
              </th>
            </tr>
          </tfoot>
        </table>
      </div>
      <p class="muted small">
        Difference = forecast − actual net money of the account (positive: more cash forecast than
        came); the rows add up to the week's totals. A payment counts under its invoice's or bill's
        account, a bank line under its own; "{NO_ACCOUNT_NAME}" is money without one on either side
        (transfers, forecast lines of no category).
      </p>
    </details>
  );
};

/** Past weeks: what the forecast said N weeks ahead against the cash that was there. */
const TrackRecord: FC<{ m: DashboardModel; currency: string }> = ({ m, currency }) => {
  const v = m.variance;
  const points = variancePoints(v, m.horizon).filter((p) => p.forecast !== null);
  const stats = v.byHorizon.find((h) => h.horizon === m.horizon);
  const scenario = m.forecast && m.forecast.scenarioKind !== "BASE" ? m.forecast.scenarioId : null;
  const href = (h: number) =>
    `/?${scenario ? `scenario=${encodeURIComponent(scenario)}&` : ""}horizon=${h}#track-record`;
  return (
    <div class="panel" id="track-record">
      <p class="muted">
        The Base forecast is kept every day; once a week has passed, the forecast made for it is set
        against the cash that was actually there.{" "}
        <span class="nowrap">Compare the forecast made:</span>{" "}
        {VARIANCE_HORIZONS.map((h, i) => (
          <>
            {i > 0 ? " · " : ""}
            {h === m.horizon ? (
              <strong aria-current="true">
                {h} week{h === 1 ? "" : "s"} ahead
              </strong>
            ) : (
              <a href={href(h)} data-horizon={h}>
                {h} week{h === 1 ? "" : "s"} ahead
              </a>
            )}
          </>
        ))}
      </p>
      {points.length === 0 ? (
        <div class="empty" id="variance-empty">
          {v.keptSince === null
            ? "No track record yet: forecasts are kept from today, and compared once their week has passed."
            : `Forecasts kept since ${v.keptSince}; no completed week has a forecast made ${m.horizon} week${m.horizon === 1 ? "" : "s"} ahead yet.`}
        </div>
      ) : (
        <div>
          {stats ? (
            <p id="variance-summary">
              Over {stats.weeks} week{stats.weeks === 1 ? "" : "s"}: off by{" "}
              <strong>
                {formatAmount(stats.meanAbsoluteError)} {currency}
              </strong>{" "}
              on average, {Number(stats.bias) >= 0 ? "too high" : "too low"} by{" "}
              {formatAmount(stats.bias.replace("-", ""))} on balance.
            </p>
          ) : null}
          <VarianceChart points={points} horizon={m.horizon} currency={currency} />
          <CategoryVariance week={v.weeks[0]} horizon={m.horizon} />
          <details class="weeks">
            <summary>Week by week</summary>
            <div class="table-wrap">
              <table id="variance-weeks">
                <thead>
                  <tr>
                    <th>Week</th>
                    <th class="num">Forecast</th>
                    <th class="num">Actual</th>
                    <th class="num">Difference</th>
                    <th class="num">In</th>
                    <th class="num">Out</th>
                  </tr>
                </thead>
                <tbody>
                  {[...points].reverse().map((p) => (
                    <tr data-week={p.weekStart}>
                      <td>
                        <span class="nowrap">{shortDate(p.weekStart)}</span>{" "}
                        <span class="muted small nowrap">
                          made {p.madeOn ? shortDate(p.madeOn) : ""}
                        </span>
                      </td>
                      <td class="num">{formatAmount(p.forecast ?? "0")}</td>
                      <td class="num">{formatAmount(p.actual)}</td>
                      <td class="num">{formatAmount(p.error ?? "0")}</td>
                      <td class="num">{formatAmount(p.inflowError ?? "0")}</td>
                      <td class="num">{formatAmount(p.outflowError ?? "0")}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="muted small">
              Difference = forecast − actual closing cash (positive: the forecast was too high); In
              and Out: the same for the week's money received and paid.
            </p>
          </details>
        </div>
      )}
    </div>
  );
};

const Tiles: FC<{ tiles: KpiTile[]; notes: string[]; currency: string }> = ({
  tiles,
  notes,
  currency,
}) => (
  <div>
    <div class="grid tiles" id="insight-tiles">
      {tiles.map((t) => (
        <div class="panel stat tile">
          <div class="label">{t.label} (last 4 weeks)</div>
          <div class="value">
            {formatAmount(t.latest)} <span class="muted">{currency}</span>
          </div>
          <Sparkline values={t.weekly} label={`${t.label}, 12 weeks`} />
          {t.change === null ? (
            <span class="chip">no prior period</span>
          ) : (
            <span
              class={`chip ${t.change === 0 ? "" : t.change > 0 === t.riseIsGood ? "good" : "bad"}`}
              title="The latest 4 weeks against the 4 before"
            >
              {pct(t.change)}
            </span>
          )}
        </div>
      ))}
    </div>
    {notes.length > 0 ? (
      <ul class="insights" id="insights">
        {notes.map((n) => (
          <li>{n}</li>
        ))}
      </ul>
    ) : (
      <p class="muted">No trend stands out this week.</p>
    )}
  </div>
);

const Ageing: FC<{ a: ReceivablesAgeing }> = ({ a }) => (
  <div id="receivables">
    {a.byCurrency.length === 0 ? (
      <div class="empty">No open invoices.</div>
    ) : (
      a.byCurrency.map((c) => (
        <div class="table-wrap">
          <table class="ageing" data-currency={c.currency}>
            <caption>
              Open invoices in {c.currency} by days past due ({a.asOfDate})
            </caption>
            <thead>
              <tr>
                <th></th>
                {AGEING_BUCKETS.map((b) => (
                  <th class="num">{b === "current" ? "Current" : b}</th>
                ))}
                <th class="num">Total</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th>Invoiced</th>
                {AGEING_BUCKETS.map((b) => (
                  <td class="num" data-bucket={b} data-amount={c.buckets[b].amount}>
                    {formatAmount(c.buckets[b].amount)}
                  </td>
                ))}
                <td class="num" data-total={c.total.amount}>
                  {formatAmount(c.total.amount)}
                </td>
              </tr>
              <tr>
                <th>Still owed</th>
                {AGEING_BUCKETS.map((b) => (
                  <td class="num">{formatAmount(c.buckets[b].due)}</td>
                ))}
                <td class="num">{formatAmount(c.total.due)}</td>
              </tr>
              <tr class="muted">
                <th>Invoices</th>
                {AGEING_BUCKETS.map((b) => (
                  <td class="num">{c.buckets[b].count}</td>
                ))}
                <td class="num">{c.total.count}</td>
              </tr>
            </tbody>
          </table>
        </div>
      ))
    )}
    {a.debtors.length > 0 ? (
      <div class="table-wrap">
        <table id="debtors">
          <caption>Biggest debtors ({a.baseCurrency}, foreign invoices converted)</caption>
          <thead>
            <tr>
              <th>Customer</th>
              <th class="num">Invoices</th>
              <th class="num">Owed</th>
              <th class="num">Overdue</th>
            </tr>
          </thead>
          <tbody>
            {a.debtors.map((d) => (
              <tr id={`customer-${slugify(d.name)}`}>
                <td>{d.name}</td>
                <td class="num">{d.count}</td>
                <td class="num">{formatAmount(d.due)}</td>
                <td class="num">{formatAmount(d.overdue)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    ) : null}
  </div>
);

const TopList: FC<{ id: string; title: string; rows: SummaryTopContact[]; what: string }> = ({
  id,
  title,
  rows,
  what,
}) => (
  <div class="panel">
    <h3>{title}</h3>
    {rows.length === 0 ? (
      <div class="empty">None this financial year.</div>
    ) : (
      <ol class="top-list" id={id}>
        {rows.map((r) => (
          <li>
            <span>{r.name || "Unnamed"}</span>{" "}
            <span class="num">
              {formatAmount(r.amount)}{" "}
              <span class="muted">
                ({r.count} {what})
              </span>
            </span>
          </li>
        ))}
      </ol>
    )}
  </div>
);

/** Where a brief reference points: the debtor row, the forecast week, the category. */
function refHref(ref: BriefRef, debtorSlugs: Set<string>): string {
  if (ref.kind === "week") return `#week-${ref.weekNumber}`;
  if (ref.kind === "customer") {
    const slug = slugify(ref.displayName);
    return debtorSlugs.has(slug) ? `#customer-${slug}` : "#receivables";
  }
  return `/settings/categories?q=${encodeURIComponent(ref.displayName)}`;
}

const refLabel = (ref: BriefRef) =>
  ref.kind === "week" ? `Week ${ref.weekNumber}` : ref.displayName;

const InlineText: FC<{ inline: Inline; link: (text: string) => string | null }> = ({
  inline,
  link,
}) => {
  const href = inline.kind === "text" ? null : link(inline.text);
  const body =
    inline.kind === "strong" ? (
      <strong>{inline.text}</strong>
    ) : inline.kind === "em" ? (
      <em>{inline.text}</em>
    ) : inline.kind === "code" ? (
      <code>{inline.text}</code>
    ) : (
      <span>{inline.text}</span>
    );
  return href ? <a href={href}>{body}</a> : body;
};

/** The brief's Markdown as escaped elements (no raw markers, no injected HTML). */
const Markdown: FC<{ blocks: Block[]; link: (text: string) => string | null }> = ({
  blocks,
  link,
}) => {
  const items = blocks.filter((b) => b.kind === "li");
  return (
    <div class="markdown">
      {blocks
        .filter((b) => b.kind === "p")
        .map((b) => (
          <p>
            {b.inlines.map((i) => (
              <InlineText inline={i} link={link} />
            ))}
          </p>
        ))}
      {items.length > 0 ? (
        <ul>
          {items.map((b) => (
            <li>
              {b.inlines.map((i) => (
                <InlineText inline={i} link={link} />
              ))}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
};

const BriefSection: FC<{
  title: string;
  s: DailyBriefView["mainDriver"];
  debtorSlugs: Set<string>;
}> = ({ title, s, debtorSlugs }) => {
  const refs = s.refs ?? [];
  const byName = new Map(
    refs.filter((r) => r.kind !== "week").map((r) => [refLabel(r).toLowerCase(), r] as const),
  );
  const link = (text: string) => {
    const ref = byName.get(text.toLowerCase());
    return ref ? refHref(ref, debtorSlugs) : null;
  };
  return (
    <section>
      <div class="muted">{title}</div>
      <h3>
        {parseMarkdown(s.headline)
          .flatMap((b) => b.inlines.map((i) => i.text))
          .join("")}
      </h3>
      <Markdown blocks={parseMarkdown(s.bodyMarkdown)} link={link} />
      {refs.length > 0 ? (
        <p class="refs muted">
          See:{" "}
          {refs.map((r, i) => (
            <>
              {i > 0 ? ", " : ""}
              <a href={refHref(r, debtorSlugs)} data-ref-kind={r.kind}>
                {refLabel(r)}
              </a>
            </>
          ))}
        </p>
      ) : null}
    </section>
  );
};

/** The dashboard at `/`: what an owner opens every morning. */
export const DashboardPage: FC<{ m: DashboardModel }> = ({ m }) => {
  const { org, forecast, brief } = m;
  const currency = org.baseCurrency;
  const otherCash = m.cash.filter((c) => c.currency !== currency).map((c) => c.currency);
  const cashNote =
    otherCash.length > 0
      ? `Only ${currency} bank accounts count; ${otherCash.join(", ")} balances are not converted.`
      : null;
  const debtorSlugs = new Set(m.ageing.debtors.map((d) => slugify(d.name)));
  return (
    <Layout title="Dashboard" view={m.view} active="dashboard">
      <h1>{org.name}</h1>
      {m.notice ? <Notice kind="ok">{m.notice}</Notice> : null}
      <LedgerConnectionPanel panel={m.ledger} timezone={org.timezone} />
      <h2>Cash today</h2>
      {m.cash.length === 0 ? (
        <div class="empty" id="cash-empty">
          No bank accounts yet: import the ledger to see cash.
        </div>
      ) : (
        <div class="grid" id="cash-today">
          {m.cash.map((c) => (
            <div class="panel stat">
              <div class="label">
                {c.currency} · {c.accounts} account{c.accounts === 1 ? "" : "s"}
              </div>
              <div class="value">
                {formatAmount(c.total)} <span class="muted">{c.currency}</span>
              </div>
              <div class="muted">
                Reconciled balances, synced{" "}
                {formatInstant(c.syncedAt, org.timezone, { zone: true })}
              </div>
            </div>
          ))}
        </div>
      )}
      <div class="grid">
        <RunwayPanel m={m} currency={currency} />
        <BurnPanel b={m.burn} currency={currency} cashNote={cashNote} />
        {forecast ? <LowestWeek f={forecast} /> : null}
      </div>
      <h2>13-week forecast</h2>
      <div class="panel" id="forecast">
        <ScenarioPicker m={m} />
        {forecast ? (
          <div>
            <p class="muted">
              {forecast.scenarioName}: ending cash (week 13){" "}
              <strong>
                {formatAmount(forecast.series.endingCash)} {forecast.currency}
              </strong>
              , computed {formatInstant(forecast.computedAt, org.timezone, { zone: true })}
            </p>
            <CashChart
              series={forecast.series}
              currency={forecast.currency}
              threshold={m.threshold}
              scenarioName={forecast.scenarioName}
            />
            <WeeksTable f={forecast} />
          </div>
        ) : (
          <div class="empty">No forecast computed yet.</div>
        )}
      </div>
      <h2>Track record</h2>
      <TrackRecord m={m} currency={currency} />
      <h2>Trends</h2>
      <Tiles tiles={m.tiles} notes={m.notes} currency={currency} />
      <h2>Who owes what</h2>
      <Ageing a={m.ageing} />
      <h2>
        Financial year to date{" "}
        <span class="muted small">
          ({m.financialYear.from} to {m.financialYear.to})
        </span>
      </h2>
      <div class="grid two">
        <TopList
          id="top-customers"
          title="Top customers (cash received, ex tax)"
          rows={m.topCustomers}
          what="invoices"
        />
        <TopList
          id="top-suppliers"
          title="Top suppliers (bills paid, ex tax)"
          rows={m.topSuppliers}
          what="bills"
        />
      </div>
      <h2>Today's brief</h2>
      <div class="panel brief" id="brief">
        {brief ? (
          <div>
            <BriefSection title="Main driver" s={brief.mainDriver} debtorSlugs={debtorSlugs} />
            <BriefSection title="Risk signal" s={brief.riskSignal} debtorSlugs={debtorSlugs} />
            <BriefSection
              title="Recommended action"
              s={brief.recommendedAction}
              debtorSlugs={debtorSlugs}
            />
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
};

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
