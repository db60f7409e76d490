import { createRequire } from "node:module";
import { ConfigError, loadConfig } from "../config.ts";
import { DatabaseUnavailableError, openDatabase } from "../db/client.ts";
import { offsetClock, systemClock } from "../domain/clock.ts";
import { AmountRangeError } from "../domain/forecasting/cents.ts";
import { NotFoundError, ServiceError } from "../services/errors.ts";
import { ParsedArgs, UsageError } from "./args.ts";
import type { CliContext } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";
import { exitWhenFlushed } from "./exit.ts";

/** The package's version (package.json is two folders up from src/cli and from dist/cli). */
const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string })
  .version;

function helpText(): string {
  const lines = [
    "Usage: cashrunway <command> [options] [--json]",
    "       cashrunway --version",
    "",
    "Commands:",
  ];
  for (const c of COMMANDS) for (const u of c.usage) lines.push(`  ${u}`);
  lines.push(
    "",
    "Every command uses the same database as the server: DATABASE_URL when set, else the embedded",
    "database in DATA_DIR (default ./.cashrunway), also while the server runs.",
  );
  return lines.join("\n");
}

/**
 * An unexpected error: its message (cut to 1,000 characters: a failed query's message holds the
 * whole statement and every parameter) and its stack frames, for a bug report.
 */
function unexpected(e: Error): string {
  const message = e.message.length > 1000 ? `${e.message.slice(0, 1000)}… (cut)` : e.message;
  const frames = (e.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  return [`${e.name}: ${message}`, ...frames].join("\n");
}

/** Runs one command line; returns the exit code. Errors are one line on stderr. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(`${helpText()}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    process.stdout.write(`cashrunway ${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  let args: ParsedArgs | undefined;
  try {
    if (!command) throw new UsageError(`unknown command "${name}" (run "cashrunway help")`);
    args = ParsedArgs.parse(rest, command.booleanFlags);
    if (args.has("help")) {
      process.stdout.write(`${command.usage.map((u) => `cashrunway ${u}`).join("\n")}\n`);
      return 0;
    }
    const config = loadConfig();
    const clock = config.CASHRUNWAY_NOW
      ? offsetClock(new Date(config.CASHRUNWAY_NOW))
      : systemClock;
    const json = args.bool("json");
    const ctx: CliContext = {
      config,
      clock,
      json,
      openDatabase: () => openDatabase(config),
      print(data, human) {
        const text = json ? JSON.stringify(data) : Array.isArray(human) ? human.join("\n") : human;
        process.stdout.write(`${text}\n`);
      },
    };
    await command.run(args, ctx);
    return 0;
  } catch (err) {
    const e = err as Error;
    if (e instanceof UsageError) {
      process.stderr.write(`cashrunway ${name}: ${e.message}\n`);
      return 2;
    }
    // An --org naming no organisation is the caller's argument, whichever command met it: the
    // same line and exit code everywhere (README, "Command line").
    const orgId = args?.string("org");
    if (e instanceof NotFoundError && /^organisation\b/.test(e.message) && orgId !== undefined) {
      process.stderr.write(`cashrunway ${name}: no organisation "${orgId}"\n`);
      return 2;
    }
    if (
      e instanceof ConfigError ||
      e instanceof ServiceError ||
      e instanceof DatabaseUnavailableError ||
      e instanceof AmountRangeError
    ) {
      process.stderr.write(`cashrunway ${name}: ${e.message.replace(/\n/g, " ")}\n`);
      return 1;
    }
    process.stderr.write(`cashrunway ${name}: ${unexpected(e)}\n`);
    return 1;
  }
}

const code = await runCli(process.argv.slice(2));
// `serve` keeps running (its run() resolves once the server is listening); others exit now,
// once their output has reached the pipe or file it goes to.
if (code !== 0 || process.argv[2] !== "serve") await exitWhenFlushed(code);
