import { requireOrganisation } from "../../services/orgs/require-organisation.ts";
import { setSensitive } from "../../services/sensitivity/set-sensitive.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runSensitive(args: ParsedArgs, ctx: CliContext): Promise<void> {
  args.allowOnly("org", "account", "contact");
  const state = args.positional(0, "on or off");
  if (state !== "on" && state !== "off") throw new UsageError(`expected on or off, got "${state}"`);
  if (args.positionals.length > 1)
    throw new UsageError(`unexpected argument "${args.positionals[1]}"`);
  const account = args.string("account");
  const contact = args.string("contact");
  if ((account === undefined) === (contact === undefined))
    throw new UsageError("give exactly one of --account or --contact");
  const orgId = args.requireString("org");
  const database = await ctx.openDatabase();
  try {
    await requireOrganisation(database.db, orgId);
    const r = await setSensitive(database.db, {
      orgId,
      target: account !== undefined ? { account } : { contact: contact ?? "" },
      sensitive: state === "on",
    });
    ctx.print(
      r,
      `${r.kind} ${r.name} (${r.externalId}) is ${r.isSensitive ? "now sensitive" : "no longer sensitive"}`,
    );
  } finally {
    await database.close();
  }
}
