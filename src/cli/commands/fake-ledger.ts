import { defineCommand } from "../command.ts";

/**
 * The ledger's contract fake as a server (docs/ledger.md): Xero's identity and accounting paths
 * over one tenant holding an export folder (or a generated demo ledger), for a local connect.
 */
export const fakeLedgerCommand = defineCommand({
  name: "fake-ledger",
  summary: "run the ledger's contract fake (Xero's paths) for a local connect",
  flags: {
    port: { value: "PORT", description: "the port to listen on (default 4010)" },
    folder: { value: "DIR", description: "a ledger export folder to serve (default: a demo)" },
    invoices: { value: "N", description: "sales invoices of the generated demo (default 1100)" },
  },
  usage: ["fake-ledger [--port PORT] [--folder DIR] [--invoices N]"],
  examples: ["fake-ledger --port 4010"],
  async run(args, ctx) {
    const { runFakeLedger } = await import("./fake-ledger-run.ts");
    await runFakeLedger(args, ctx);
  },
});
