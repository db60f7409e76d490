import { ROLES } from "../../db/schema/index.ts";
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
    const { runUser } = await import("./user-run.ts");
    await runUser(args, ctx);
  },
});
