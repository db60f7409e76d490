import { generatePassword } from "../../services/web-auth/password.ts";
import { setUserPassword } from "../../services/web-auth/set-password.ts";
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";

/** Reads all of stdin (a password piped in, so it never appears in `ps` or shell history). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

export async function runPassword(args: ParsedArgs, ctx: CliContext): Promise<void> {
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
}
