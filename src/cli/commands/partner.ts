import { createPartner, linkPartner, unlinkPartner } from "../../services/partners/partners.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

export const partnerCommand = defineCommand({
  name: "partner",
  summary: "partners (an accountant's practice) and the organisations they reach",
  flags: {
    name: { value: "N", description: "create: the partner's name" },
    "owner-email": { value: "E", description: "create: the partner user's email" },
    partner: { value: "ID", description: "link, unlink: the partner" },
    org: { value: "ID", description: "link, unlink: the organisation" },
  },
  subcommands: [
    {
      name: "create",
      summary: "a new partner and its user",
      usage: ["partner create --name N [--owner-email E]"],
      flags: ["name", "owner-email"],
      examples: ['partner create --name "Ledger & Co" --owner-email books@ledger.example'],
    },
    {
      name: "link",
      summary: "let a partner's keys reach an organisation",
      usage: ["partner link --partner ID --org ID"],
      flags: ["partner", "org"],
      examples: ["partner link --partner prt_4k8m2q9x7v5b3n6c1d0f --org org_tpxprxz2g0095ksv8z2r"],
    },
    {
      name: "unlink",
      summary: "stop a partner's keys reaching an organisation",
      usage: ["partner unlink --partner ID --org ID"],
      flags: ["partner", "org"],
      examples: [
        "partner unlink --partner prt_4k8m2q9x7v5b3n6c1d0f --org org_tpxprxz2g0095ksv8z2r",
      ],
    },
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
});
