import { defineCommand } from "../command.ts";

/**
 * `cashrunway cash`: the operator's levers on the cash position and the forecast.
 *
 *   cash override --org ID --amount A        starting cash is A (source `manual`)
 *   cash override --org ID --clear           back to the ledger's reconciled total
 *   cash show --org ID                       the cash position, as READ_SENSITIVE sees it
 *   cash item add --org ID (--in | --out) --amount A --date YYYY-MM-DD
 *                 [--description T] [--account CODE] [--probability P]   (P: a pipeline item)
 *   cash item list --org ID
 *   cash item remove --org ID ITEM_ID
 *
 * Every change recomputes the organisation's forecasts, so the API serves it at once.
 */
export const cashCommand = defineCommand({
  name: "cash",
  summary: "the cash position: override starting cash, add manual and pipeline items",
  flags: {
    org: { value: "ID", description: "the organisation" },
    amount: {
      value: "A",
      description: "an amount in the organisation's currency, as a decimal (12500.00)",
    },
    clear: { description: "override: go back to the ledger's reconciled total" },
    in: { description: "item add: money coming in" },
    out: { description: "item add: money going out" },
    date: { value: "YYYY-MM-DD", description: "item add: the day the money moves" },
    description: { value: "T", description: "item add: what the item is, shown in the forecast" },
    account: { value: "CODE", description: "item add: the ledger account the item belongs to" },
    probability: {
      value: "P",
      description: "item add: a pipeline item, weighted by this probability (0 to 1)",
    },
  },
  subcommands: [
    {
      name: "override",
      summary: "set the starting cash by hand, or clear the override",
      usage: [
        "cash override --org ID (--amount A | --clear)   set or clear the starting-cash override",
      ],
      flags: ["org", "amount", "clear"],
      examples: [
        "cash override --org org_tpxprxz2g0095ksv8z2r --amount 48250.00",
        "cash override --org org_tpxprxz2g0095ksv8z2r --clear",
      ],
    },
    {
      name: "show",
      summary: "the cash position, account by account (as a READ_SENSITIVE key sees it)",
      usage: ["cash show --org ID                              the cash position"],
      flags: ["org"],
      examples: ["cash show --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "item add",
      summary: "a manual item (or, with --probability, a pipeline item) in the forecast",
      usage: [
        "cash item add --org ID (--in|--out) --amount A --date D [--description T] [--account CODE] [--probability P]",
      ],
      flags: ["org", "in", "out", "amount", "date", "description", "account", "probability"],
      examples: [
        'cash item add --org org_tpxprxz2g0095ksv8z2r --out --amount 9000 --date 2026-03-31 --description "VAT"',
        'cash item add --org org_tpxprxz2g0095ksv8z2r --in --amount 20000 --date 2026-04-15 --probability 0.6 --description "Acme renewal"',
      ],
    },
    {
      name: "item list",
      summary: "the organisation's manual and pipeline items",
      usage: ["cash item list --org ID"],
      flags: ["org"],
      examples: ["cash item list --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "item remove",
      summary: "removes a manual or pipeline item",
      usage: ["cash item remove --org ID ITEM_ID"],
      flags: ["org"],
      examples: ["cash item remove --org org_tpxprxz2g0095ksv8z2r ci_3m8q2x7k9v4b6n1c5d0f"],
    },
  ],
  async run(args, ctx) {
    const { runCash } = await import("./cash-run.ts");
    await runCash(args, ctx);
  },
});
