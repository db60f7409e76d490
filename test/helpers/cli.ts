import type { CliContext, Command } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { ConfigSchema } from "../../src/config.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { TEST_NOW } from "./api.ts";
import { getTestDatabase } from "./test-db.ts";

/**
 * Runs one command's `run()` with --json against the shared test database and returns the JSON
 * objects it printed. Errors (UsageError, ServiceError) propagate to the test.
 */
export async function runCommand(command: Command, argv: string[], now: Date = TEST_NOW) {
  const database = await getTestDatabase();
  const out: Record<string, unknown>[] = [];
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(now),
    json: true,
    // The shared test database stays open: close() is a no-op here.
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data) => out.push(data),
  };
  await command.run(parseCommandLine(command, [...argv, "--json"]).args, ctx);
  return out;
}
