import {
  LEDGER_STATES,
  type LedgerState,
  setLedgerState,
} from "../../services/alerts/set-ledger-state.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

/** Operator command: puts an organisation's ledger connection in a state, for demos and tests. */
export const ledgerCommand = defineCommand({
  name: "ledger",
  summary: "an organisation's ledger connection",
  flags: { org: { value: "ID", description: "the organisation" } },
  subcommands: [
    {
      name: "set-state",
      summary: "put the ledger connection in a state, for demos and tests",
      usage: ["ledger set-state --org ID none|healthy|retrying|reconnect_required"],
      flags: ["org"],
      examples: ["ledger set-state --org org_tpxprxz2g0095ksv8z2r reconnect_required"],
      positionals: LEDGER_STATES,
    },
  ],
  async run(args, ctx) {
    const sub = args.positional(0, "subcommand (set-state)");
    if (sub !== "set-state")
      throw new UsageError(`unknown subcommand "ledger ${sub}" (expected: ledger set-state)`);
    args.allowOnly("org");
    const state = args.positional(1, `state (${LEDGER_STATES.join(", ")})`);
    if (!(LEDGER_STATES as readonly string[]).includes(state)) {
      throw new UsageError(`state must be one of ${LEDGER_STATES.join(", ")}, got "${state}"`);
    }
    if (args.positionals.length > 2)
      throw new UsageError(`unexpected argument "${args.positionals[2]}"`);
    const orgId = args.requireString("org");
    const database = await ctx.openDatabase();
    try {
      const r = await setLedgerState(database.db, { orgId, state: state as LedgerState });
      ctx.print(
        r,
        `Ledger connection of ${r.orgId}: ${r.state}${r.status ? ` (status ${r.status}, provider ${r.provider})` : " (no connection)"}`,
      );
    } finally {
      await database.close();
    }
  },
});
