import { ConfigError, loadConfig } from "../config.ts";
import { DatabaseUnavailableError, openDatabase } from "../db/client.ts";
import { offsetClock, systemClock } from "../domain/clock.ts";
import { AmountRangeError } from "../domain/forecasting/cents.ts";
import { NotFoundError, ServiceError } from "../services/errors.ts";
import { nearest, type ParsedArgs, UsageError } from "./args.ts";
import { type CliContext, type Command, findSubcommand, parseCommandLine } from "./command.ts";
import { commandHelp, overallHelp } from "./help.ts";
import { VERSION } from "./version.ts";

/** Where a command line's output goes (the process's streams, or a test's buffers). */
export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/**
 * An unexpected error: its message (cut to 1,000 characters: a failed query's message holds the
 * whole statement and every parameter) and its stack frames, for a bug report.
 */
function unexpected(e: Error): string {
  const message = e.message.length > 1000 ? `${e.message.slice(0, 1000)}… (cut)` : e.message;
  const frames = (e.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
  return [`${e.name}: ${message}`, ...frames].join("\n");
}

/**
 * Runs one command line against `commands`; returns the exit code: 0, 2 for bad arguments (one
 * line on stderr), 1 for other failures.
 */
export async function runCli(
  argv: readonly string[],
  commands: readonly Command[],
  out: CliOutput = processOutput,
): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") {
    out.stdout(`${overallHelp(commands)}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V" || name === "version") {
    out.stdout(`cashrunway ${VERSION}\n`);
    return 0;
  }
  if (name === "help") return help(rest, commands, out);
  const command = commands.find((c) => c.name === name);
  let args: ParsedArgs | undefined;
  try {
    if (!command) throw new UsageError(unknownCommand(name, commands));
    const parsed = parseCommandLine(command, rest);
    args = parsed.args;
    if (args.has("help")) {
      out.stdout(`${commandHelp(command, parsed.subcommand)}\n`);
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
        out.stdout(`${text}\n`);
      },
    };
    await command.run(args, ctx);
    return 0;
  } catch (err) {
    const e = err as Error;
    if (e instanceof UsageError) {
      out.stderr(`cashrunway ${name}: ${e.message}\n`);
      return 2;
    }
    // An --org naming no organisation is the caller's argument, whichever command met it: the
    // same line and exit code everywhere (README, "Command line").
    const orgId = args?.has("org") ? args.string("org") : undefined;
    if (e instanceof NotFoundError && /^organisation\b/.test(e.message) && orgId !== undefined) {
      out.stderr(`cashrunway ${name}: no organisation "${orgId}"\n`);
      return 2;
    }
    if (
      e instanceof ConfigError ||
      e instanceof ServiceError ||
      e instanceof DatabaseUnavailableError ||
      e instanceof AmountRangeError
    ) {
      out.stderr(`cashrunway ${name}: ${e.message.replace(/\s*\n\s*/g, " ")}\n`);
      return 1;
    }
    out.stderr(`cashrunway ${name}: ${unexpected(e)}\n`);
    return 1;
  }
}

/** `cashrunway help [command [subcommand]]`. */
function help(words: readonly string[], commands: readonly Command[], out: CliOutput): number {
  const [name, ...rest] = words;
  if (name === undefined) {
    out.stdout(`${overallHelp(commands)}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    out.stderr(`cashrunway help: ${unknownCommand(name, commands)}\n`);
    return 2;
  }
  out.stdout(`${commandHelp(command, findSubcommand(command, rest))}\n`);
  return 0;
}

function unknownCommand(name: string, commands: readonly Command[]): string {
  const near = nearest(
    name,
    commands.map((c) => c.name),
  );
  return `unknown command "${name}" (${near ? `did you mean "${near}"? ` : ""}run "cashrunway help")`;
}
