import { ROLES, type Role } from "../../db/schema/index.ts";
import { createUser } from "../../services/users/create-user.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

export const userCommand = defineCommand({
  name: "user",
  summary: "users and their membership of organisations",
  flags: {
    email: {
      value: "E",
      description: "the user's email (an existing user is found, not duplicated)",
    },
    name: { value: "N", description: "the user's name" },
    org: { value: "ID", description: "make the user a member of this organisation" },
    role: {
      value: "R",
      description: `their role there (${ROLES.join(", ")}); without it a new member is a member and an existing one keeps theirs`,
      choices: ROLES,
    },
  },
  subcommands: [
    {
      name: "create",
      summary: "a user, or an existing user's membership",
      usage: ["user create --email E [--name N] [--org ID --role owner|admin|member]"],
      flags: ["email", "name", "org", "role"],
      examples: [
        'user create --email sam@acme.example --name "Sam Patel" --org org_tpxprxz2g0095ksv8z2r --role admin',
      ],
    },
  ],
  async run(args, ctx) {
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
  },
});
