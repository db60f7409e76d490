import {
  LEDGER_STATES,
  type LedgerState,
  setLedgerState,
} from "../../services/alerts/set-ledger-state.ts";
import { UsageError } from "../args.ts";
import type { Command } from "../command.ts";

/** Operator command: puts an organisation's ledger connection in a state, for demos and tests. */
export const ledgerCommand: Command = {
  name: "ledger",
  usage: ["ledger set-state --org ID none|healthy|retrying|reconnect_required"],
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
};
