import { defineCommand } from "../command.ts";

const PARTNER = "prt_4k8m2q9x7v5b3n6c1d0f";

export const partnerCommand = defineCommand({
  name: "partner",
  summary: "partners (an accountant's practice), their owners and the organisations they reach",
  flags: {
    name: { value: "N", description: "create: the partner's name" },
    "owner-email": { value: "E", description: "create: the email of its first owner" },
    partner: { value: "ID", description: "the partner" },
    org: { value: "ID", description: "link, unlink: the organisation" },
    email: { value: "E", description: "owner add, owner remove: the user (an existing one)" },
    from: { value: "E", description: "transfer: the owner handing the partner over" },
    to: { value: "E", description: "transfer: the user taking it over (an existing one)" },
  },
  subcommands: [
    {
      name: "create",
      summary: "a new partner and its first owner",
      usage: ["partner create --name N [--owner-email E]"],
      flags: ["name", "owner-email"],
      examples: ['partner create --name "Ledger & Co" --owner-email books@ledger.example'],
    },
    {
      name: "link",
      summary: "let a partner's keys reach an organisation",
      usage: ["partner link --partner ID --org ID"],
      flags: ["partner", "org"],
      examples: [`partner link --partner ${PARTNER} --org org_tpxprxz2g0095ksv8z2r`],
    },
    {
      name: "unlink",
      summary: "stop a partner's keys reaching an organisation",
      usage: ["partner unlink --partner ID --org ID"],
      flags: ["partner", "org"],
      examples: [`partner unlink --partner ${PARTNER} --org org_tpxprxz2g0095ksv8z2r`],
    },
    {
      name: "owners",
      summary: "who owns a partner (creates its keys and manages its owners)",
      usage: ["partner owners --partner ID"],
      flags: ["partner"],
      examples: [`partner owners --partner ${PARTNER} --json`],
    },
    {
      name: "owner add",
      summary: "make a user an owner of the partner",
      usage: ["partner owner add --partner ID --email E"],
      flags: ["partner", "email"],
      examples: [`partner owner add --partner ${PARTNER} --email sam@ledger.example`],
    },
    {
      name: "owner remove",
      summary: "remove an owner (not the last); the partner keys they created stop working",
      usage: [
        "partner owner remove --partner ID --email E   (the keys that owner created stop working)",
      ],
      flags: ["partner", "email"],
      examples: [`partner owner remove --partner ${PARTNER} --email alex@ledger.example`],
    },
    {
      name: "transfer",
      summary: "hand a partner from one owner to another user in one step",
      usage: [
        "partner transfer --partner ID --from E --to E   (the keys the old owner created stop working)",
      ],
      flags: ["partner", "from", "to"],
      examples: [
        `partner transfer --partner ${PARTNER} --from alex@ledger.example --to sam@ledger.example`,
      ],
    },
  ],
  async run(args, ctx) {
    const { runPartner } = await import("./partner-run.ts");
    await runPartner(args, ctx);
  },
});
