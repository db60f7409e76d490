import type { FC } from "hono/jsx";
import type { ScenarioAssumptions } from "../../domain/forecasting/types.ts";
import { canonical, money } from "../../domain/money.ts";
import { axisRange, shortDate } from "../components/cash-chart.tsx";
import { CsrfField, Layout, Notice } from "../components/layout.tsx";
import { ASSUMPTION_FIELDS, describeAssumptions } from "../data/scenario-form.ts";
import { formatAmount, formatInstant } from "../format.ts";
import type { CurrentOrg, WebView } from "../request.ts";

/** A scenario with its latest forecast's closing cash per week (null: none computed yet). */
export interface ScenarioRow {
  id: string;
  name: string;
  kind: string;
  assumptions: ScenarioAssumptions;
  computedAt: string | null;
  weeks: { weekStart: string; closing: string }[] | null;
}

/** a − b, exactly. */
const diff = (a: string, b: string) => canonical(money(a).minus(money(b)));

const W = 360;
const H = 120;

/** The scenario's 13 weeks (solid) against BASE's (dashed grey), inline SVG. */
const VersusBase: FC<{ s: ScenarioRow; base: ScenarioRow["weeks"] }> = ({ s, base }) => {
  const weeks = s.weeks ?? [];
  const all = [...weeks, ...(base ?? [])].map((w) => Number(w.closing));
  if (all.length === 0) return null;
  const { bottom, top } = axisRange(Math.min(...all), Math.max(...all));
  const n = Math.max(weeks.length, base?.length ?? 0);
  const x = (i: number) => 6 + ((W - 12) * i) / Math.max(n - 1, 1);
  const y = (v: number) => 6 + ((top - v) / (top - bottom)) * (H - 24);
  const line = (ws: { closing: string }[]) =>
    ws.map((w, i) => `${x(i).toFixed(1)},${y(Number(w.closing)).toFixed(1)}`).join(" ");
  return (
    <svg viewBox={`0 0 ${W} ${H}`} class="versus" role="img" aria-label={`${s.name} against Base`}>
      {base && s.kind !== "BASE" ? <polyline points={line(base)} class="line base" /> : null}
      <polyline points={line(weeks)} class="line closing" />
      {weeks.map((w, i) => (
        <circle cx={x(i)} cy={y(Number(w.closing))} r="2" class="point" data-closing={w.closing}>
          <title>{`Week of ${w.weekStart}: ${formatAmount(w.closing)}`}</title>
        </circle>
      ))}
      {weeks[0] ? (
        <text x="6" y={H - 4} class="axis">
          {shortDate(weeks[0].weekStart)}
        </text>
      ) : null}
      {weeks.length > 1 ? (
        <text x={W - 6} y={H - 4} text-anchor="end" class="axis">
          {shortDate(weeks[weeks.length - 1]?.weekStart ?? "")}
        </text>
      ) : null}
    </svg>
  );
};

const AssumptionFields: FC<{ a?: ScenarioAssumptions; idPrefix: string }> = ({
  a = {},
  idPrefix,
}) => (
  <div class="fields">
    <div>
      <label for={`${idPrefix}-basedOn`}>Based on</label>
      <select id={`${idPrefix}-basedOn`} name="basedOn">
        <option value="" selected={!a.basedOn}>
          Base (default)
        </option>
        {(["BASE", "BEST", "WORST"] as const).map((k) => (
          <option value={k} selected={a.basedOn === k}>
            {k}
          </option>
        ))}
      </select>
    </div>
    {ASSUMPTION_FIELDS.map((f) => {
      const v = a[f.name];
      return (
        <div>
          <label for={`${idPrefix}-${f.name}`}>{f.label}</label>
          <input
            type="text"
            inputmode="decimal"
            id={`${idPrefix}-${f.name}`}
            name={f.name}
            value={v === undefined || v === null ? "" : String(v)}
          />
        </div>
      );
    })}
    <div>
      <label for={`${idPrefix}-receivableTiming`}>Receivables without an expected date</label>
      <select id={`${idPrefix}-receivableTiming`} name="receivableTiming">
        <option value="" selected={!a.receivableTiming}>
          As the base scenario
        </option>
        <option value="history" selected={a.receivableTiming === "history"}>
          By the customer's payment history
        </option>
        <option value="due" selected={a.receivableTiming === "due"}>
          On the due date
        </option>
      </select>
    </div>
  </div>
);

const WeeksVersus: FC<{ s: ScenarioRow; base: ScenarioRow["weeks"] }> = ({ s, base }) => (
  <details>
    <summary>Week by week against Base</summary>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Week</th>
            <th class="num">Base</th>
            <th class="num">{s.name}</th>
            <th class="num">Difference</th>
          </tr>
        </thead>
        <tbody>
          {(s.weeks ?? []).map((w, i) => {
            const b = base?.[i]?.closing;
            return (
              <tr>
                <td class="nowrap">{shortDate(w.weekStart)}</td>
                <td class="num">{b ? formatAmount(b) : "—"}</td>
                <td class="num">{formatAmount(w.closing)}</td>
                <td class="num">{b ? formatAmount(diff(w.closing, b)) : "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  </details>
);

/** `/settings/scenarios`: every scenario's 13 weeks against BASE; custom ones edited here. */
export const ScenariosPage: FC<{
  view: WebView;
  org: CurrentOrg;
  rows: ScenarioRow[];
  canManage: boolean;
  notice?: string | undefined;
  error?: string | undefined;
}> = ({ view, org, rows, canManage, notice, error }) => {
  const base = rows.find((r) => r.kind === "BASE")?.weeks ?? null;
  return (
    <Layout title="Scenarios" view={view} active="scenarios">
      <h1>Scenarios</h1>
      <p class="lead">
        Base, Best case and Worst case follow fixed rules; custom scenarios start from one of them
        with your own assumptions (the same as <code>cashrunway scenario create</code>). Forecasts
        are recomputed when a scenario is saved.
      </p>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <div class="grid two" id="scenarios">
        {rows.map((s) => {
          const last = s.weeks?.[s.weeks.length - 1]?.closing;
          const baseLast = base?.[base.length - 1]?.closing;
          return (
            <section class="panel scenario" id={`scenario-${s.id}`} data-scenario-id={s.id}>
              <h3>
                {s.name} <span class="chip">{s.kind}</span>
              </h3>
              <p class="muted small">
                {describeAssumptions(s.assumptions).join("; ") ||
                  (s.kind === "CUSTOM" ? "Same as Base" : "Built-in rules")}
              </p>
              {s.weeks ? (
                <>
                  <VersusBase s={s} base={base} />
                  <p class="small">
                    Week 13: <strong>{formatAmount(last ?? "0")}</strong>
                    {baseLast && s.kind !== "BASE"
                      ? ` (${formatAmount(diff(last ?? "0", baseLast))} against Base)`
                      : ""}
                    {" · "}
                    <a href={`/?scenario=${s.id}`}>Open on the dashboard</a>
                  </p>
                  <p class="muted small">
                    Computed {formatInstant(s.computedAt, org.timezone, { zone: true })}
                  </p>
                  <WeeksVersus s={s} base={base} />
                </>
              ) : (
                <div class="empty">No forecast computed yet.</div>
              )}
              {canManage && s.kind === "CUSTOM" ? (
                <details class="edit">
                  <summary>Edit or delete</summary>
                  <form method="post" action={`/settings/scenarios/${s.id}`}>
                    <CsrfField token={view.csrfToken} orgId={org.id} />
                    <label for={`edit-${s.id}-name`}>Name</label>
                    <input
                      type="text"
                      id={`edit-${s.id}-name`}
                      name="name"
                      value={s.name}
                      maxlength={100}
                      required
                    />
                    <AssumptionFields a={s.assumptions} idPrefix={`edit-${s.id}`} />
                    <p>
                      <button type="submit">Save</button>
                    </p>
                  </form>
                  <form method="post" action={`/settings/scenarios/${s.id}/delete`}>
                    <CsrfField token={view.csrfToken} orgId={org.id} />
                    <div class="danger-zone">
                      <label class="check">
                        <input type="checkbox" name="confirm" value="yes" required />
                        Delete {s.name} and its forecasts
                      </label>
                      <button type="submit" class="danger small">
                        Delete
                      </button>
                    </div>
                  </form>
                </details>
              ) : null}
            </section>
          );
        })}
      </div>
      {canManage ? (
        <section class="panel" id="create-scenario">
          <h2>New scenario</h2>
          <form method="post" action="/settings/scenarios">
            <CsrfField token={view.csrfToken} orgId={org.id} />
            <label for="new-name">Name</label>
            <input type="text" id="new-name" name="name" maxlength={100} required />
            <AssumptionFields idPrefix="new" />
            <p>
              <button type="submit">Create scenario</button>
            </p>
          </form>
        </section>
      ) : (
        <p class="muted">Owners and admins create and edit scenarios.</p>
      )}
    </Layout>
  );
};
