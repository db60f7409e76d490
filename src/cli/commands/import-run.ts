import { statSync } from "node:fs";
import { LedgerFormatError } from "../../connector/errors.ts";
import { InvalidParameterError, NotFoundError } from "../../services/errors.ts";
import { importLedgerFolder, LedgerImportError } from "../../services/sync/import-ledger.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runImport(args: ParsedArgs, ctx: CliContext): Promise<void> {
  args.allowOnly("org");
  const orgId = args.requireString("org");
  const folder = args.positional(0, "FOLDER (the ledger export folder)");
  if (args.positionals.length > 1) {
    throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
  }
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`FOLDER "${folder}" is not a directory`);
  }
  const database = await ctx.openDatabase();
  try {
    const result = await importLedgerFolder(database.db, { orgId, folder, now: ctx.clock.now() });
    const width = Math.max(...Object.keys(result.counts).map((k) => k.length));
    ctx.print({ syncRunId: result.syncRunId, outcome: result.outcome, counts: result.counts }, [
      `Imported ${folder} into ${orgId} (sync run ${result.syncRunId})`,
      ...Object.entries(result.counts).map(
        ([name, c]) => `  ${name.padEnd(width)}  read ${c.read}, written ${c.written}`,
      ),
    ]);
  } catch (e) {
    if (e instanceof NotFoundError) throw new UsageError(`no organisation "${orgId}"`);
    if (!(e instanceof LedgerImportError)) throw e;
    const { syncRunId, outcome, counts, error } = e.result;
    if (ctx.json) ctx.print({ syncRunId, outcome, counts, error }, error);
    const message = `import failed (sync run ${syncRunId}): ${error}`;
    // A malformed export is the caller's input: one line, no stack trace.
    if (e.cause instanceof LedgerFormatError) throw new InvalidParameterError("FOLDER", message);
    throw new Error(message, { cause: e });
  } finally {
    await database.close();
  }
}
