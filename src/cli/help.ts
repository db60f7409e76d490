import { type Flag, GLOBAL_FLAGS } from "./args.ts";
import { type Command, flagsOf, type Subcommand, usageLines } from "./command.ts";

/** Help is wrapped to this many columns whatever the terminal, so it reads the same everywhere. */
const WIDTH = 100;

/** `cashrunway help`: every command with its one-line summary. */
export function overallHelp(commands: readonly Command[]): string {
  return [
    "Usage: cashrunway <command> [options] [--json]",
    "       cashrunway <command> --help      a command's options and examples",
    "       cashrunway --version",
    "",
    "Commands:",
    ...table(commands.map((c) => [c.name, c.summary])),
    "",
    "Every command uses the same database as the server: DATABASE_URL when set, else the embedded",
    "database in DATA_DIR (default ./.cashrunway), also while the server runs. With --json a",
    "command prints one JSON object; bad arguments exit 2, other failures 1.",
    "Shell completion: source <(cashrunway completion bash)   (or zsh; see docs/cli.md)",
  ].join("\n");
}

/**
 * `cashrunway <command> --help` (every subcommand) or `cashrunway <command> <sub> --help`
 * (that one): usage, what each flag means, and examples.
 */
export function commandHelp(command: Command, sub?: Subcommand): string {
  const title = sub ? `${command.name} ${sub.name}` : command.name;
  const lines = [`cashrunway ${title}: ${sub ? sub.summary : command.summary}`, "", "Usage:"];
  for (const u of sub ? sub.usage : usageLines(command)) lines.push(`  cashrunway ${u}`);
  if (command.subcommands && !sub) {
    lines.push("", "Subcommands:", ...table(command.subcommands.map((s) => [s.name, s.summary])));
  }
  const flags = { ...flagsOf(command, sub), ...GLOBAL_FLAGS };
  lines.push(
    "",
    "Options:",
    ...table(
      Object.entries(flags).map(([name, flag]) => [flagLabel(name, flag), flag.description]),
    ),
  );
  const examples = sub
    ? sub.examples
    : command.subcommands
      ? command.subcommands.flatMap((s) => s.examples.slice(0, 1))
      : (command.examples ?? []);
  lines.push("", "Examples:", ...examples.map((e) => `  cashrunway ${e}`));
  if (command.subcommands && !sub) {
    lines.push(
      "",
      `"cashrunway ${command.name} <subcommand> --help" shows one subcommand's options.`,
    );
  }
  return lines.join("\n");
}

function flagLabel(name: string, flag: Flag): string {
  const label = name === "help" ? "-h, --help" : `--${name}`;
  const value = flag.value === undefined ? "" : ` ${flag.value}`;
  return `${label}${value}`;
}

/** Two columns; the second wraps under itself. */
function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.min(28, Math.max(...rows.map(([left]) => left.length))) + 2;
  const out: string[] = [];
  for (const [left, right] of rows) {
    const wrapped = wrap(right, WIDTH - 2 - width);
    if (left.length + 2 > width) {
      out.push(`  ${left}`);
      for (const line of wrapped) out.push(`  ${" ".repeat(width)}${line}`);
      continue;
    }
    out.push(`  ${left.padEnd(width)}${wrapped[0] ?? ""}`);
    for (const line of wrapped.slice(1)) out.push(`  ${" ".repeat(width)}${line}`);
  }
  return out;
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
