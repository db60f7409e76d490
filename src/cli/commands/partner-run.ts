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
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

const SUBCOMMANDS = "create, link, unlink, owners, owner, transfer";

async function userIdByEmail(db: DbOrTx, email: string): Promise<string> {
  const user = await findUserByEmail(db, email.trim());
  if (!user) throw new NotFoundError(`user with email "${email}"`);
  return user.id;
}

export async function runPartner(args: ParsedArgs, ctx: CliContext): Promise<void> {
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
}
