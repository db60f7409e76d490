import type { FC } from "hono/jsx";
import { CREDIT_ALLOWANCE } from "../../domain/metering/plans.ts";
import { Layout, type NavKey } from "../components/layout.tsx";
import type { WebView } from "../request.ts";

/** Monthly price per seat, from the product's plan table (gap facts §1.5). */
const PRICES: Record<keyof typeof CREDIT_ALLOWANCE, string> = {
  Free: "$0",
  Pocket: "$9",
  Wallet: "$24",
  Vault: "$49",
  Reserve: "$249",
};

/**
 * What a Free-plan member sees instead of an analysis page (gap facts §1.5: Free reaches API
 * keys and usage, Settings and Partners; every analysis page leads to an Upgrade screen).
 */
export const UpgradePage: FC<{ view: WebView; active: NavKey; page: string }> = ({
  view,
  active,
  page,
}) => (
  <Layout title="Upgrade" view={view} active={active}>
    <h1>Upgrade to see {page}</h1>
    <div class="panel" id="upgrade">
      <p>
        Your seat is on the <strong>Free</strong> plan: the agentic path, with{" "}
        {CREDIT_ALLOWANCE.Free} queries per 5 hours through an API key (MCP or the CLI). The
        analysis pages need a paid plan; every paid plan has the same features and differs only in
        queries per rolling 5-hour window.
      </p>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th>Plan</th>
              <th class="num">Queries per 5 h</th>
              <th class="num">Per seat, monthly</th>
            </tr>
          </thead>
          <tbody>
            {(Object.keys(CREDIT_ALLOWANCE) as (keyof typeof CREDIT_ALLOWANCE)[]).map((p) => (
              <tr>
                <td>{p}</td>
                <td class="num">{CREDIT_ALLOWANCE[p].toLocaleString("en")}</td>
                <td class="num">{PRICES[p]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>
        {view.org?.role === "owner" ? (
          <a class="button" href="/settings/billing">
            Choose a plan on Billing
          </a>
        ) : (
          "Ask the organisation's owner to move your seat to a paid plan."
        )}{" "}
        Meanwhile <a href="/settings/keys">API keys</a>, <a href="/settings/partners">Partners</a>{" "}
        and the other settings stay open.
      </p>
    </div>
  </Layout>
);
