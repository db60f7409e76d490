import { defineCommand } from "../command.ts";

/**
 * `cashrunway import --org ID FOLDER [--json]`: imports a ledger export folder
 * (docs/ledger-export.md) into an organisation and prints what was read and written.
 * With --json, one object `{ syncRunId, outcome, counts }` (also on failure, with `error`,
 * before the command exits non-zero).
 */
export const importCommand = defineCommand({
  name: "import",
  summary: "import a ledger export folder into an organisation (docs/ledger-export.md)",
  flags: { org: { value: "ID", description: "the organisation to import into" } },
  usage: ["import --org ID FOLDER   import a ledger export folder (see docs/ledger-export.md)"],
  examples: ["import --org org_tpxprxz2g0095ksv8z2r ./exports/2026-03"],
  positionals: "directory",
  async run(args, ctx) {
    const { runImport } = await import("./import-run.ts");
    await runImport(args, ctx);
  },
});
