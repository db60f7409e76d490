import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import { type Flag, nearest, type ParsedArgs, parseArguments, UsageError } from "./args.ts";

/** What a command receives. Commands print through `print` so `--json` works everywhere. */
export interface CliContext {
  config: Config;
  clock: Clock;
  /** True with --json: print one JSON object and nothing else on stdout. */
  json: boolean;
  /** Opens the configured database (embedded: through a running server's socket if there is one). */
  openDatabase(): Promise<Database>;
  /** Prints `data` as JSON with --json, else the human lines. */
  print(data: Record<string, unknown>, human: string | string[]): void;
}

/** What shell completion offers for a positional argument. */
export type PositionalCompletion = readonly string[] | "directory" | "file";

/** One subcommand (`keys create`) of a command that has them. */
export interface Subcommand<F extends string = string> {
  /** The words after the command's name: `create`, or `item add`. */
  name: string;
  /** What it does, one line, for help. */
  summary: string;
  /** Its usage lines without the leading `cashrunway ` (the README lists them word for word). */
  usage: string[];
  /** The command's flags it accepts (besides --json and --help); any other is refused. */
  flags: readonly F[];
  /** At least one complete command line, without the leading `cashrunway `. */
  examples: string[];
  /** Words offered by shell completion for its positional arguments. */
  positionals?: PositionalCompletion;
}

/**
 * A command, declared once: its flags (with descriptions) and subcommands drive parsing, the
 * help text and shell completion. See docs/cli.md.
 */
export interface Command<F extends string = string> {
  /** First word on the command line, e.g. `keys`. */
  name: string;
  /** What it does, one line, for `cashrunway help`. */
  summary: string;
  /** Every flag the command takes, by name without the dashes. */
  flags: Readonly<Record<F, Flag>>;
  /**
   * Usage lines (without `cashrunway `) and examples of a command without subcommands; with
   * subcommands, theirs are used.
   */
  usage?: string[];
  examples?: string[];
  /** Words offered by shell completion for its positional arguments (no subcommands). */
  positionals?: PositionalCompletion;
  /** Its subcommands; when given, the first word after the command must name one. */
  subcommands?: readonly Subcommand<F>[];
  run(args: ParsedArgs, ctx: CliContext): Promise<void>;
}

/**
 * Declares a command; the type parameter checks that every subcommand's flags are declared.
 * A command has either subcommands or its own usage lines and examples.
 */
export function defineCommand<const F extends string>(
  command:
    | (Command<F> & { subcommands: readonly Subcommand<NoInfer<F>>[] })
    | (Command<F> & { usage: string[]; examples: string[]; subcommands?: undefined }),
): Command {
  return command as unknown as Command;
}

/** Every usage line of a command, in help order. */
export function usageLines(command: Command): string[] {
  return command.subcommands
    ? command.subcommands.flatMap((s) => s.usage)
    : (command.usage ?? [`${command.name}`]);
}

/**
 * The subcommand `positionals` start with (the longest name that matches), or undefined when
 * the command has none or the words name none.
 */
export function findSubcommand(
  command: Command,
  positionals: readonly string[],
): Subcommand | undefined {
  let found: Subcommand | undefined;
  for (const sub of command.subcommands ?? []) {
    const words = sub.name.split(" ");
    if (words.every((w, i) => positionals[i] === w)) {
      if (!found || words.length > found.name.split(" ").length) found = sub;
    }
  }
  return found;
}

/** The flags `sub` accepts (all the command's without subcommands), with their declarations. */
export function flagsOf(command: Command, sub: Subcommand | undefined): Record<string, Flag> {
  if (!sub) return { ...command.flags };
  const out: Record<string, Flag> = {};
  for (const name of sub.flags) {
    const flag = command.flags[name];
    if (flag) out[name] = flag;
  }
  return out;
}

/**
 * Parses a command's arguments (everything after its name). With subcommands, the first words
 * must name one (a typo is answered with the nearest), and only its flags are accepted; `--help`
 * is accepted anywhere, so `keys create --help` shows create's help.
 */
export function parseCommandLine(
  command: Command,
  argv: readonly string[],
): { args: ParsedArgs; subcommand: Subcommand | undefined } {
  if (!command.subcommands) {
    return {
      args: parseArguments(argv, command.flags, command.name),
      subcommand: undefined,
    };
  }
  // The subcommand is known from the positionals, so read them with every flag first.
  const subcommand = findSubcommand(
    command,
    parseArguments(argv, command.flags, command.name, true).positionals,
  );
  if (!subcommand) {
    const loose = parseArguments(argv, command.flags, command.name);
    if (loose.has("help")) return { args: loose, subcommand };
    const first = loose.positionals[0];
    const names = [...new Set(command.subcommands.map((s) => s.name.split(" ")[0] as string))];
    if (first === undefined) throw new UsageError(`missing subcommand (${names.join(", ")})`);
    const group = command.subcommands.filter((s) => s.name.startsWith(`${first} `));
    if (group.length > 0) {
      const words = group.map((s) => s.name.split(" ")[1]);
      const second = loose.positionals[1];
      if (second === undefined) {
        throw new UsageError(
          `missing subcommand of "${command.name} ${first}" (${words.join(", ")})`,
        );
      }
      throw new UsageError(
        `unknown subcommand "${command.name} ${first} ${second}" (${didYouMean(second, words as string[])}expected: ${words.join(", ")})`,
      );
    }
    throw new UsageError(
      `unknown subcommand "${command.name} ${first}" (${didYouMean(first, names)}expected: ${names.join(", ")})`,
    );
  }
  return {
    args: parseArguments(argv, flagsOf(command, subcommand), `${command.name} ${subcommand.name}`),
    subcommand,
  };
}

function didYouMean(word: string, candidates: readonly string[]): string {
  const near = nearest(word, candidates);
  return near === undefined ? "" : `did you mean "${near}"? `;
}
