import type { Config } from "../config.ts";
import type { Database } from "../db/client.ts";
import type { Clock } from "../domain/clock.ts";
import type { ParsedArgs } from "./args.ts";

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

export interface Command {
  /** First word on the command line, e.g. `keys`. */
  name: string;
  /** One line each for the help text. */
  usage: string[];
  /** Flags that take no value (besides --json and --help). */
  booleanFlags?: string[];
  run(args: ParsedArgs, ctx: CliContext): Promise<void>;
}
