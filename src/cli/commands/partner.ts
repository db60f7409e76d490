import { createPartner, linkPartner, unlinkPartner } from "../../services/partners/partners.ts";
import { UsageError } from "../args.ts";
import type { Command } from "../command.ts";

export const partnerCommand: Command = {
  name: "partner",
  usage: [
    "partner create --name N [--owner-email E]",
    "partner link --partner ID --org ID",
    "partner unlink --partner ID --org ID",
  ],
  async run(args, ctx) {
    const sub = args.positional(0, "subcommand (create, link, unlink)");
    if (sub !== "create" && sub !== "link" && sub !== "unlink") {
      throw new UsageError(`unknown subcommand "partner ${sub}" (expected: create, link, unlink)`);
    }
    if (sub === "create") {
      args.allowOnly("name", "owner-email");
      const input = { name: args.requireString("name"), ownerEmail: args.string("owner-email") };
      const database = await ctx.openDatabase();
      try {
        const p = await createPartner(database.db, input, ctx.clock.now());
        ctx.print({ id: p.id, ownerUserId: p.ownerUserId }, [
          `Created partner ${p.id}`,
          `  partner user: ${p.ownerUserId}`,
        ]);
      } finally {
        await database.close();
      }
      return;
    }
    args.allowOnly("partner", "org");
    const partnerId = args.requireString("partner");
    const orgId = args.requireString("org");
    const database = await ctx.openDatabase();
    try {
      const r =
        sub === "link"
          ? await linkPartner(database.db, partnerId, orgId, ctx.clock.now())
          : await unlinkPartner(database.db, partnerId, orgId);
      ctx.print(
        r,
        `${r.linked ? "Linked" : "Unlinked"} ${r.orgId} ${r.linked ? "to" : "from"} partner ${r.partnerId}`,
      );
    } finally {
      await database.close();
    }
  },
};
