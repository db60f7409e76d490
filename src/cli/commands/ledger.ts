import { LEDGER_STATES } from "../../services/alerts/set-ledger-state.ts";
import { defineCommand } from "../command.ts";

/** An organisation's ledger connection: connect (headless), status, sync, disconnect. */
export const ledgerCommand = defineCommand({
  name: "ledger",
  summary: "an organisation's ledger connection",
  flags: {
    org: { value: "ID", description: "the organisation" },
    tenant: { value: "TENANT_ID", description: "the ledger organisation to link, when several" },
    full: { description: "read everything, not only what changed since the last sync" },
    timeout: { value: "SECONDS", description: "how long connect waits for approval (600)" },
  },
  subcommands: [
    {
      name: "connect",
      summary: "connect the ledger: print the authorization URL, wait, link, run the first sync",
      usage: ["ledger connect --org ID [--tenant TENANT_ID] [--timeout SECONDS] [--json]"],
      flags: ["org", "tenant", "timeout"],
      examples: ["ledger connect --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "status",
      summary: "the connection's state, tenant, last successful sync and last runs",
      usage: ["ledger status --org ID [--json]"],
      flags: ["org"],
      examples: ["ledger status --org org_tpxprxz2g0095ksv8z2r --json"],
    },
    {
      name: "sync",
      summary: "sync the ledger now (incremental unless --full)",
      usage: ["ledger sync --org ID [--full] [--json]"],
      flags: ["org", "full"],
      examples: ["ledger sync --org org_tpxprxz2g0095ksv8z2r --full"],
    },
    {
      name: "disconnect",
      summary: "revoke the ledger's access; the synced data stays, read-only",
      usage: ["ledger disconnect --org ID [--json]"],
      flags: ["org"],
      examples: ["ledger disconnect --org org_tpxprxz2g0095ksv8z2r"],
    },
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
    const { runLedger } = await import("./ledger-run.ts");
    await runLedger(args, ctx);
  },
});
