import { describe, expect, it } from "vitest";
import { TEST_NOW } from "../../../test/helpers/api.ts";
import { createTestOrg } from "../../../test/helpers/factories.ts";
import { getTestDatabase, testDriver } from "../../../test/helpers/test-db.ts";
import { ConfigSchema } from "../../config.ts";
import { fixedClock } from "../../domain/clock.ts";
import { signIn } from "../../services/web-auth/sign-in.ts";
import { UsageError } from "../args.ts";
import type { CliContext } from "../command.ts";
import { parseCommandLine } from "../command.ts";
import { passwordCommand } from "./web.ts";

async function run(argv: string[]): Promise<Record<string, unknown>[]> {
  const database = await getTestDatabase();
  const out: Record<string, unknown>[] = [];
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(TEST_NOW),
    json: true,
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data) => out.push(data),
  };
  await passwordCommand.run(parseCommandLine(passwordCommand, [...argv, "--json"]).args, ctx);
  return out;
}

describe(`password command (${testDriver})`, () => {
  it("sets a generated password, printed once, that signs in", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const email = `owner+${org.id}@cashrunway.local`;
    const [out] = await run(["set", "--email", email.toUpperCase()]);
    expect(out).toMatchObject({ userId: org.ownerUserId, email, password: expect.any(String) });
    const r = await signIn(db, {
      email,
      password: String(out?.password),
      ip: "cli-test",
      now: TEST_NOW,
    });
    expect(r).toEqual({ ok: true, userId: org.ownerUserId });
  });

  it("refuses a password given as a flag, and an unknown subcommand", async () => {
    await expect(
      run(["set", "--email", "a@b.c", "--password", "hunter2hunter2"]),
    ).rejects.toBeInstanceOf(UsageError);
    await expect(run(["reset", "--email", "a@b.c"])).rejects.toBeInstanceOf(UsageError);
  });
});
