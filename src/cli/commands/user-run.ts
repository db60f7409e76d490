import { ROLES, type Role } from "../../db/schema/index.ts";
import { createUser } from "../../services/users/create-user.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

export async function runUser(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const sub = args.positional(0, "subcommand (create)");
  if (sub !== "create")
    throw new UsageError(`unknown subcommand "user ${sub}" (expected: user create)`);
  args.allowOnly("email", "name", "org", "role");
  const role = args.string("role");
  if (role !== undefined && !(ROLES as readonly string[]).includes(role)) {
    throw new UsageError(`--role must be one of ${ROLES.join(", ")}, got "${role}"`);
  }
  if (role !== undefined && !args.has("org")) throw new UsageError("--role needs --org");
  const database = await ctx.openDatabase();
  try {
    const user = await createUser(
      database.db,
      {
        email: args.requireString("email"),
        name: args.string("name"),
        orgId: args.string("org"),
        role: role as Role | undefined,
      },
      ctx.clock.now(),
    );
    ctx.print(
      {
        id: user.id,
        created: user.created,
        ...(user.membership ? { membership: user.membership } : {}),
      },
      [
        `${user.created ? "Created" : "Found existing"} user ${user.id}`,
        ...(user.membership
          ? [`  member of ${user.membership.orgId} as ${user.membership.role}`]
          : []),
      ],
    );
  } finally {
    await database.close();
  }
}
