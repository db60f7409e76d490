import type { FC } from "hono/jsx";
import { PNL_POSITIONS } from "../../db/schema/index.ts";
import {
  type AccountCategory,
  defaultInclusion,
  defaultPnlPosition,
  PNL_LABELS,
} from "../../services/categories/categories.ts";
import { CsrfField, Layout, Notice } from "../components/layout.tsx";
import type { CurrentOrg, WebView } from "../request.ts";

/** `/settings/categories`: every synced ledger account with its three controls. */
export const CategoriesPage: FC<{
  view: WebView;
  org: CurrentOrg;
  rows: AccountCategory[];
  total: number;
  q: string;
  page: number;
  pageSize: number;
  canManage: boolean;
  canFlag: boolean;
  notice?: string | undefined;
}> = ({ view, org, rows, total, q, page, pageSize, canManage, canFlag, notice }) => {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const query = (p: number) => new URLSearchParams({ q, page: String(p) }).toString();
  const back = `/settings/categories?${query(page)}`;
  return (
    <Layout title="Account categories" view={view} active="categories">
      <h1>Account categories</h1>
      <p class="lead">
        For each ledger account: whether it counts in burn and revenue (default from the account
        class), where it sits in the P&amp;L (default from the account type), and whether it is
        sensitive. Gross profit in the revenue summary and the forecast's recurring run rates use
        the first two; the sensitive flag only changes what API keys without READ_SENSITIVE see.
      </p>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      <form method="get" action="/settings/categories" class="pager">
        <input
          type="search"
          name="q"
          value={q}
          placeholder="Search by account name or code"
          aria-label="Search accounts"
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {rows.length === 0 ? (
        <div class="empty">
          {q ? "No account matches." : "No ledger accounts yet: import the ledger first."}
        </div>
      ) : (
        <div class="table-wrap">
          <table id="categories">
            <thead>
              <tr>
                <th>Account</th>
                <th>Burn / revenue</th>
                <th>P&amp;L position</th>
                <th>Sensitive</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {rows.map((a) => {
                const formId = `cat-${a.id}`;
                const inc = defaultInclusion(a.class, a.type) ? "Included" : "Excluded";
                return (
                  <tr id={`account-${a.id}`} data-account-id={a.id}>
                    <td>
                      <strong>{a.name}</strong>
                      <div class="muted small">
                        {a.code ? `${a.code} · ` : ""}
                        {a.type}
                        {a.class ? ` · ${a.class}` : ""}
                        {a.status !== "ACTIVE" ? ` · ${a.status}` : ""}
                      </div>
                    </td>
                    <td>
                      {canManage ? (
                        <select name="included" form={formId} aria-label={`${a.name}: burn`}>
                          <option value="default" selected={a.includedIsDefault}>
                            Default ({inc})
                          </option>
                          <option value="yes" selected={!a.includedIsDefault && a.included}>
                            Included
                          </option>
                          <option value="no" selected={!a.includedIsDefault && !a.included}>
                            Excluded
                          </option>
                        </select>
                      ) : (
                        <span>{a.included ? "Included" : "Excluded"}</span>
                      )}
                    </td>
                    <td>
                      {canManage ? (
                        <select name="position" form={formId} aria-label={`${a.name}: P&L`}>
                          <option value="default" selected={a.positionIsDefault}>
                            Default ({PNL_LABELS[defaultPnlPosition(a.type)]})
                          </option>
                          {PNL_POSITIONS.map((p) => (
                            <option value={p} selected={!a.positionIsDefault && a.position === p}>
                              {PNL_LABELS[p]}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <span>{PNL_LABELS[a.position]}</span>
                      )}
                    </td>
                    <td>
                      {canFlag ? (
                        <label class="check">
                          <input
                            type="checkbox"
                            name="sensitive"
                            value="on"
                            form={formId}
                            checked={a.isSensitive}
                          />
                          Sensitive
                        </label>
                      ) : a.isSensitive ? (
                        <span class="chip sensitive">sensitive</span>
                      ) : (
                        <span class="muted">no</span>
                      )}
                    </td>
                    <td>
                      {canManage || canFlag ? (
                        <form
                          method="post"
                          action="/settings/categories"
                          id={formId}
                          class="inline"
                        >
                          <CsrfField token={view.csrfToken} orgId={org.id} />
                          <input type="hidden" name="accountId" value={a.id} />
                          <input type="hidden" name="back" value={back} />
                          <button type="submit" class="small">
                            Save
                          </button>
                        </form>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        <span class="muted">
          {total} account{total === 1 ? "" : "s"} · page {page} of {pages}
        </span>
        {page > 1 ? (
          <a class="button small secondary" href={`/settings/categories?${query(page - 1)}`}>
            ← Previous
          </a>
        ) : null}
        {page < pages ? (
          <a class="button small secondary" href={`/settings/categories?${query(page + 1)}`}>
            Next →
          </a>
        ) : null}
      </div>
    </Layout>
  );
};
