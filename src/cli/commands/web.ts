import { generatePassword } from "../../services/web-auth/password.ts";
import { setUserPassword } from "../../services/web-auth/set-password.ts";
import { UsageError } from "../args.ts";
import { defineCommand } from "../command.ts";

/** Reads all of stdin (a password piped in, so it never appears in `ps` or shell history). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

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
    const sub = args.positional(0, "subcommand (set)");
    if (sub !== "set") {
      throw new UsageError(`unknown subcommand "password ${sub}" (expected: password set)`);
    }
    args.allowOnly("email", "stdin");
    const email = args.requireString("email");
    const fromStdin = args.bool("stdin");
    const password = fromStdin ? await readStdin() : generatePassword();
    const database = await ctx.openDatabase();
    try {
      const set = await setUserPassword(database.db, {
        target: { email },
        password,
        now: ctx.clock.now(),
      });
      ctx.print(
        {
          userId: set.userId,
          email: set.email,
          sessionsEnded: set.sessionsEnded,
          ...(fromStdin ? {} : { password }),
        },
        [
          `Password set for ${set.email} (${set.sessionsEnded} session(s) signed out).`,
          ...(fromStdin
            ? []
            : ["", "Generated password (shown once, keep it):", "", `  ${password}`, ""]),
          "Sign in at /settings/login.",
        ],
      );
    } finally {
      await database.close();
    }
  },
});
