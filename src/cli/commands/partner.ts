import type { DbOrTx } from "../../db/client.ts";
import { NotFoundError } from "../../services/errors.ts";
import {
  addPartnerOwner,
  createPartner,
  linkPartner,
  listPartnerOwners,
  removePartnerOwner,
  transferPartner,
  unlinkPartner,
} from "../../services/partners/partners.ts";
import { findUserByEmail } from "../../services/users/create-user.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

const SUBCOMMANDS = "create, link, unlink, owners, owner, transfer";

async function userIdByEmail(db: DbOrTx, email: string): Promise<string> {
  const user = await findUserByEmail(db, email.trim());
  if (!user) throw new NotFoundError(`user with email "${email}"`);
  return user.id;
}

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
    const sub = args.positional(0, `subcommand (${SUBCOMMANDS})`);
    if (!SUBCOMMANDS.split(", ").includes(sub)) {
      throw new UsageError(`unknown subcommand "partner ${sub}" (expected: ${SUBCOMMANDS})`);
    }
    const ownerAction = sub === "owner" ? args.positional(1, "owner action (add or remove)") : "";
    if (sub === "owner" && ownerAction !== "add" && ownerAction !== "remove") {
      throw new UsageError(`unknown action "partner owner ${ownerAction}" (expected: add, remove)`);
    }
    const database = await ctx.openDatabase();
    const db = database.db;
    try {
      if (sub === "create") {
        args.allowOnly("name", "owner-email");
        const input = { name: args.requireString("name"), ownerEmail: args.string("owner-email") };
        const p = await createPartner(db, input, ctx.clock.now());
        ctx.print({ id: p.id, ownerUserId: p.ownerUserId }, [
          `Created partner ${p.id}`,
          `  owner: ${p.ownerUserId}`,
        ]);
      } else if (sub === "link" || sub === "unlink") {
        args.allowOnly("partner", "org");
        const partnerId = args.requireString("partner");
        const orgId = args.requireString("org");
        const r =
          sub === "link"
            ? await linkPartner(db, partnerId, orgId, ctx.clock.now())
            : await unlinkPartner(db, partnerId, orgId);
        ctx.print(
          r,
          `${r.linked ? "Linked" : "Unlinked"} ${r.orgId} ${r.linked ? "to" : "from"} partner ${r.partnerId}`,
        );
      } else if (sub === "owners") {
        args.allowOnly("partner");
        const partnerId = args.requireString("partner");
        const owners = await listPartnerOwners(db, partnerId);
        if (owners.length === 0) throw new NotFoundError(`partner ${partnerId}`);
        ctx.print(
          { partnerId, owners: owners.map((o) => ({ ...o, since: o.since.toISOString() })) },
          owners.map((o) => `${o.userId}  ${o.email}  since ${o.since.toISOString()}`),
        );
      } else if (sub === "owner") {
        args.allowOnly("partner", "email");
        const partnerId = args.requireString("partner");
        const email = args.requireString("email");
        if (ownerAction === "add") {
          const r = await addPartnerOwner(db, { partnerId, email }, ctx.clock.now());
          ctx.print(
            r,
            r.added
              ? `Added ${email} as an owner of partner ${partnerId}`
              : `${email} already owns partner ${partnerId}`,
          );
        } else {
          const userId = await userIdByEmail(db, email);
          const r = await removePartnerOwner(db, { partnerId, userId });
          ctx.print(r, [
            `Removed ${email} as an owner of partner ${partnerId}`,
            "  the partner keys they created stop working now",
          ]);
        }
      } else {
        // transfer
        args.allowOnly("partner", "from", "to");
        const partnerId = args.requireString("partner");
        const fromUserId = await userIdByEmail(db, args.requireString("from"));
        const r = await transferPartner(
          db,
          { partnerId, fromUserId, toEmail: args.requireString("to") },
          ctx.clock.now(),
        );
        ctx.print(r, [
          `Partner ${partnerId} moved from ${r.fromUserId} to ${r.toUserId}`,
          "  the partner keys the previous owner created stop working now",
        ]);
      }
    } finally {
      await database.close();
    }
  },
});
