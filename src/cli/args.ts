/** Thrown for bad command-line arguments: printed as one line on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * Parsed command line: positionals in order, and `--flag value` / `--flag=value` / bare `--flag`
 * (true). A flag given twice is refused (`--org A --org B` must not quietly mean B), and so is an
 * empty value (`--org ""` must not quietly mean "no organisation given", which for some commands
 * is "every organisation").
 */
export class ParsedArgs {
  constructor(
    readonly positionals: string[],
    private readonly flags: Map<string, string | true>,
  ) {}

  static parse(argv: readonly string[], booleanFlags: readonly string[] = []): ParsedArgs {
    const positionals: string[] = [];
    const flags = new Map<string, string | true>();
    const booleans = new Set(["json", "help", ...booleanFlags]);
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i] ?? "";
      if (arg === "--") {
        positionals.push(...argv.slice(i + 1));
        break;
      }
      if (arg.startsWith("--")) {
        const eq = arg.indexOf("=");
        const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
        if (!name) throw new UsageError(`bad flag "${arg}"`);
        if (flags.has(name)) throw new UsageError(`--${name} is given more than once`);
        if (eq >= 0) flags.set(name, arg.slice(eq + 1));
        else if (booleans.has(name)) flags.set(name, true);
        else {
          const next = argv[i + 1];
          if (next === undefined || next.startsWith("--"))
            throw new UsageError(`--${name} needs a value`);
          flags.set(name, next);
          i++;
        }
      } else positionals.push(arg);
    }
    return new ParsedArgs(positionals, flags);
  }

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

  /** Refuses flags the command does not know, so typos never pass silently. */
  allowOnly(...names: string[]): void {
    const allowed = new Set(["json", "help", ...names]);
    for (const name of this.flags.keys()) {
      if (!allowed.has(name)) throw new UsageError(`unknown flag --${name}`);
    }
  }

  positional(index: number, what: string): string {
    const v = this.positionals[index];
    if (v === undefined) throw new UsageError(`missing ${what}`);
    return v;
  }
}
