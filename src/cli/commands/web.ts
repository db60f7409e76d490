import { defineCommand } from "../command.ts";

/**
 * `password set`: gives a user a settings-screen password. Without `--stdin` a random one is
 * generated and printed once; a password is never accepted as a flag (it would land in shell
 * history and the process list). Every session of the user ends and the lockout count restarts.
 */
export const passwordCommand = defineCommand({
  name: "password",
  summary: "settings-screen passwords",
  flags: {
    email: { value: "E", description: "the user's email" },
    stdin: { description: "read the password from stdin instead of generating one" },
  },
  subcommands: [
    {
      name: "set",
      summary:
        "set a password (generated and printed once, or read from stdin); signs the user out",
      usage: [
        "password set --email E [--stdin]   (settings-screen password: generated and printed once, or read from stdin)",
      ],
      flags: ["email", "stdin"],
      examples: [
        "password set --email sam@acme.example",
        "password set --email sam@acme.example --stdin < new-password.txt",
      ],
    },
  ],
  async run(args, ctx) {
    const { runPassword } = await import("./web-run.ts");
    await runPassword(args, ctx);
  },
});
