import { parseArgs } from "node:util";

/** Thrown for bad command-line arguments: printed as one line on stderr, exit code 2. */
export class UsageError extends Error {}

/** One flag of a command, declared once: it drives parsing, help and shell completion. */
export interface Flag {
  /**
   * The value's placeholder in help (`ID`, `YYYY-MM-DD`); absent for a switch (`--sensitive`),
   * which takes no value (or `=true`/`=false`).
   */
  value?: string;
  /** One sentence for the help text. */
  description: string;
  /** The values shell completion offers (the command still validates what it is given). */
  choices?: readonly string[];
}

/** Flags every command takes. */
export const GLOBAL_FLAGS: Readonly<Record<string, Flag>> = {
  json: { description: "print one JSON object instead of lines (errors stay one line on stderr)" },
  help: { description: "show this help" },
};

/**
 * The nearest of `candidates` to `word` by edit distance (a swap of two neighbouring letters
 * counts as one edit), when it is close enough to be a typo: at most one edit per three
 * characters, and at least one allowed. Ties go to the first candidate.
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** "unknown flag --jsn (did you mean --json?)", or the flags there are when none is close. */
export function unknownFlagMessage(flag: string, known: readonly string[], where: string): string {
  const name = flag.replace(/^-+/, "");
  const near = nearest(name, known);
  if (near !== undefined) return `unknown flag ${flag} (did you mean --${near}?)`;
  return `unknown flag ${flag} (${where} takes ${known.map((k) => `--${k}`).join(", ")})`;
}

/**
 * A parsed command line: positionals in order, and `--flag value` / `--flag=value` / a bare
 * switch (true). Parsing (`parseArguments`) refuses a flag the command does not declare, a flag
 * given twice (`--org A --org B` must not quietly mean B) and a missing value; reading refuses an
 * empty value (`--org ""` must not quietly mean "no organisation given", which for some commands
 * is "every organisation").
 */
export class ParsedArgs {
  constructor(
    readonly positionals: string[],
    private readonly flags: Map<string, string | true>,
    /** Where the flags were parsed, for messages: `keys create`. */
    private readonly where = "this command",
  ) {}

  has(name: string): boolean {
    return this.flags.has(name);
  }

  bool(name: string): boolean {
    const v = this.flags.get(name);
    if (v === undefined) return false;
    if (v === true || v === "true" || v === "1") return true;
    if (v === "false" || v === "0") return false;
    throw new UsageError(`--${name} takes no value (or true/false), got "${v}"`);
  }

  string(name: string): string | undefined {
    const v = this.flags.get(name);
    if (v === true || (v !== undefined && v.trim() === "")) {
      throw new UsageError(`--${name} needs a value`);
    }
    return v;
  }

  requireString(name: string): string {
    const v = this.string(name);
    if (v === undefined || v.trim() === "") throw new UsageError(`--${name} is required`);
    return v;
  }

  /** A positive integer flag within [min, max]. */
  int(name: string, min: number, max: number): number | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, got "${v}"`);
    const n = Number(v);
    if (n < min || n > max)
      throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
    return n;
  }

  /**
   * Narrows the flags further than the subcommand's declaration, for a rule that depends on
   * another flag (`keys create --partner` takes no `--scopes`).
   */
  allowOnly(...names: string[]): void {
    const allowed = ["json", "help", ...names];
    for (const name of this.flags.keys()) {
      if (!allowed.includes(name)) {
        throw new UsageError(unknownFlagMessage(`--${name}`, allowed, this.where));
      }
    }
  }

  positional(index: number, what: string): string {
    const v = this.positionals[index];
    if (v === undefined) throw new UsageError(`missing ${what}`);
    return v;
  }
}

/**
 * Parses `argv` against the flags a command declares (`node:util` `parseArgs` tokenises; the
 * rules above are applied to its tokens). `where` names the command in messages.
 */
export function parseArguments(
  argv: readonly string[],
  declared: Readonly<Record<string, Flag>>,
  where: string,
  /** Skip undeclared flags instead of refusing them (to find a subcommand's words first). */
  lenient = false,
): ParsedArgs {
  const all: Record<string, Flag> = { ...declared, ...GLOBAL_FLAGS };
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, flag] of Object.entries(all)) {
    options[name] = { type: flag.value === undefined ? "boolean" : "string" };
  }
  (options.help as { short?: string }).short = "h";
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  const known = Object.keys(all);
  for (const token of tokens) {
    if (token.kind === "positional") positionals.push(token.value);
    if (token.kind !== "option") continue;
    const flag = all[token.name];
    if (flag === undefined || (token.rawName.length === 2 && token.name !== "help")) {
      if (lenient) continue;
      throw new UsageError(unknownFlagMessage(token.rawName, known, where));
    }
    if (flags.has(token.name)) throw new UsageError(`--${token.name} is given more than once`);
    if (token.value !== undefined && token.inlineValue === false && token.value.startsWith("--")) {
      // parseArgs takes the next word as the value whatever it is; `--org --json` is a slip.
      throw new UsageError(`--${token.name} needs a value`);
    }
    if (flag.value !== undefined && token.value === undefined) {
      throw new UsageError(`--${token.name} needs a value`);
    }
    flags.set(token.name, token.value ?? true);
  }
  return new ParsedArgs(positionals, flags, where);
}
