import type { FC } from "hono/jsx";
import type { AccountFlagRow, ContactFlagRow } from "../../services/sensitivity/list-flags.ts";
import { CsrfField, Layout, Notice } from "../components/layout.tsx";
import type { CurrentOrg, WebView } from "../request.ts";

/** One toggle: a tiny form posting the opposite of the current flag. */
const FlagToggle: FC<{
  view: WebView;
  kind: "account" | "contact";
  id: string;
  name: string;
  isSensitive: boolean;
  canManage: boolean;
  back: string;
}> = ({ view, kind, id, name, isSensitive, canManage, back }) => (
  <span>
    {isSensitive ? (
      <span class="chip sensitive">sensitive</span>
    ) : (
      <span class="chip off">not sensitive</span>
    )}{" "}
    {canManage ? (
      <form method="post" action="/settings/sensitive" class="inline">
        <CsrfField token={view.csrfToken} orgId={view.org?.id} />
        <input type="hidden" name="kind" value={kind} />
        <input type="hidden" name="id" value={id} />
        <input type="hidden" name="sensitive" value={isSensitive ? "off" : "on"} />
        <input type="hidden" name="back" value={back} />
        <button
          type="submit"
          class="small secondary"
          aria-label={`${isSensitive ? "Clear the sensitive flag of" : "Flag as sensitive:"} ${name}`}
        >
          {isSensitive ? "Clear" : "Flag sensitive"}
        </button>
      </form>
    ) : null}
  </span>
);

/** Settings → Sensitive data: ledger accounts and contacts with their flags. */
export const SensitivePage: FC<{
  view: WebView;
  org: CurrentOrg;
  canManage: boolean;
  accounts: AccountFlagRow[];
  accountTotal: number;
  aq: string;
  apage: number;
  accountPageSize: number;
  contacts: ContactFlagRow[];
  contactTotal: number;
  q: string;
  page: number;
  pageSize: number;
  notice?: string | undefined;
}> = ({
  view,
  org,
  canManage,
  accounts,
  accountTotal,
  aq,
  apage,
  accountPageSize,
  contacts,
  contactTotal,
  q,
  page,
  pageSize,
  notice,
}) => {
  // Every link and form keeps both lists' search and page.
  const state = { aq, apage: String(apage), q, page: String(page) };
  const href = (change: Partial<typeof state>, anchor: string) =>
    `/settings/sensitive?${new URLSearchParams({ ...state, ...change }).toString()}#${anchor}`;
  const back = `/settings/sensitive?${new URLSearchParams(state).toString()}`;
  const pages = Math.max(1, Math.ceil(contactTotal / pageSize));
  const pageHref = (p: number) => href({ page: String(p) }, "contacts");
  const accountPages = Math.max(1, Math.ceil(accountTotal / accountPageSize));
  const accountHref = (p: number) => href({ apage: String(p) }, "accounts");
  return (
    <Layout title="Sensitive data" view={view} active="sensitive">
      <h1>Sensitive data</h1>
      <p class="lead">
        Accounts and contacts flagged sensitive are hidden from every API key without{" "}
        <code>READ_SENSITIVE</code>: lists drop their rows, summaries rename them. Totals are never
        masked. A change applies to the very next API response. People signed in here always see
        real names.
      </p>
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      {!canManage ? (
        <Notice kind="warn">
          Your role ({org.role}) can view the flags; an owner or admin can change them.
        </Notice>
      ) : null}
      <h2 id="accounts">Ledger accounts</h2>
      <form method="get" action="/settings/sensitive#accounts" class="pager" id="account-search">
        <input type="hidden" name="q" value={q} />
        <input type="hidden" name="page" value={String(page)} />
        <input
          type="search"
          name="aq"
          value={aq}
          placeholder="Search accounts by name or code"
          aria-label="Search accounts"
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {accounts.length === 0 ? (
        <div class="empty">
          {aq ? "No account matches." : "No ledger accounts yet: import the ledger first."}
        </div>
      ) : (
        <div class="table-wrap">
          <table id="account-flags">
            <thead>
              <tr>
                <th>Code</th>
                <th>Name</th>
                <th>Type</th>
                <th>Class</th>
                <th>Status</th>
                <th>Sensitive</th>
              </tr>
            </thead>
            <tbody>
              {accounts.map((a) => (
                <tr data-id={a.id}>
                  <td>{a.code ?? "—"}</td>
                  <td>{a.name}</td>
                  <td>{a.type}</td>
                  <td>{a.class ?? "—"}</td>
                  <td>{a.status}</td>
                  <td>
                    <FlagToggle
                      view={view}
                      kind="account"
                      id={a.id}
                      name={a.name}
                      isSensitive={a.isSensitive}
                      canManage={canManage}
                      back={`${back}#accounts`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager" id="account-pager">
        <span class="muted">
          {accountTotal} account{accountTotal === 1 ? "" : "s"} · page {apage} of {accountPages}
        </span>
        {apage > 1 ? (
          <a class="button small secondary" href={accountHref(apage - 1)}>
            ← Previous
          </a>
        ) : null}
        {apage < accountPages ? (
          <a class="button small secondary" href={accountHref(apage + 1)}>
            Next →
          </a>
        ) : null}
      </div>
      <h2 id="contacts">Contacts</h2>
      <form method="get" action="/settings/sensitive#contacts" class="pager">
        <input type="hidden" name="aq" value={aq} />
        <input type="hidden" name="apage" value={String(apage)} />
        <input
          type="search"
          name="q"
          value={q}
          placeholder="Search contacts by name"
          aria-label="Search contacts"
        />
        <button type="submit" class="secondary">
          Search
        </button>
      </form>
      {contacts.length === 0 ? (
        <div class="empty">
          {q ? "No contact matches." : "No contacts yet: import the ledger first."}
        </div>
      ) : (
        <div class="table-wrap">
          <table id="contact-flags">
            <thead>
              <tr>
                <th>Name</th>
                <th>Customer / supplier</th>
                <th>Status</th>
                <th>Sensitive</th>
              </tr>
            </thead>
            <tbody>
              {contacts.map((ct) => (
                <tr data-id={ct.id}>
                  <td>{ct.name}</td>
                  <td>
                    {[ct.isCustomer ? "customer" : null, ct.isSupplier ? "supplier" : null]
                      .filter(Boolean)
                      .join(", ") || "—"}
                  </td>
                  <td>{ct.contactStatus}</td>
                  <td>
                    <FlagToggle
                      view={view}
                      kind="contact"
                      id={ct.id}
                      name={ct.name}
                      isSensitive={ct.isSensitive}
                      canManage={canManage}
                      back={`${back}#contacts`}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div class="pager">
        <span class="muted">
          {contactTotal} contact{contactTotal === 1 ? "" : "s"} · page {page} of {pages} (flagged
          first)
        </span>
        {page > 1 ? (
          <a class="button small secondary" href={pageHref(page - 1)}>
            ← Previous
          </a>
        ) : null}
        {page < pages ? (
          <a class="button small secondary" href={pageHref(page + 1)}>
            Next →
          </a>
        ) : null}
      </div>
    </Layout>
  );
};
