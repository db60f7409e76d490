import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/cli/args.ts";
import type { CliContext } from "../../src/cli/command.ts";
import { parseCommandLine } from "../../src/cli/command.ts";
import { keysCommand } from "../../src/cli/commands/keys.ts";
import { ConfigSchema } from "../../src/config.ts";
import { fixedClock } from "../../src/domain/clock.ts";
import { authenticateKey } from "../../src/services/keys/authenticate-key.ts";
import { createPartner, linkPartner } from "../../src/services/partners/partners.ts";
import { TEST_NOW } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

/** Runs `keys …` with --json against the test database; returns the printed JSON objects. */
async function keys(argv: string[]): Promise<Record<string, unknown>[]> {
  const database = await getTestDatabase();
  const out: Record<string, unknown>[] = [];
  const args = parseCommandLine(keysCommand, [...argv, "--json"]).args;
  const ctx: CliContext = {
    config: ConfigSchema.parse({}),
    clock: fixedClock(TEST_NOW),
    json: true,
    // The shared test database stays open: close() is a no-op here.
    openDatabase: async () => ({ ...database, close: async () => {} }),
    print: (data) => out.push(data),
  };
  await keysCommand.run(args, ctx);
  return out;
}

describe(`keys command (${testDriver})`, () => {
  it("creates, lists, rotates and revokes an organisation key", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const [created] = await keys([
      "create",
      "--org",
      org.id,
      "--label",
      "CLI key",
      "--scopes",
      "read_bank,READ_FORECAST",
      "--sensitive",
    ]);
    expect(created).toMatchObject({
      key: expect.stringMatching(/^cr_live_/),
      prefix: expect.any(String),
      scopes: ["READ_BANK", "READ_FORECAST", "READ_SENSITIVE"],
    });
    expect(await authenticateKey(db, String(created?.key))).not.toBeNull();

    const [rotated] = await keys(["rotate", String(created?.prefix)]);
    expect(rotated).toMatchObject({
      key: expect.stringMatching(/^cr_live_/),
      replacedPrefix: created?.prefix,
    });
    expect(await authenticateKey(db, String(created?.key))).toBeNull();

    const [revoked] = await keys(["revoke", String(rotated?.prefix)]);
    expect(revoked).toMatchObject({ prefix: rotated?.prefix, status: "revoked" });

    const [listed] = await keys(["list", "--org", org.id]);
    const list = listed?.keys as { prefix: string; status: string }[];
    // Same creation instant (fixed clock), so the order between the two is by id: compare as sets.
    expect(list.map((k) => [k.prefix, k.status]).sort()).toEqual(
      [
        [created?.prefix, "revoked"],
        [rotated?.prefix, "revoked"],
      ].sort(),
    );
    expect(JSON.stringify(listed)).not.toContain(String(created?.key).slice(-38));
  });

  it("creates USER and pinned PARTNER keys", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const [user] = await keys([
      "create",
      "--user",
      org.ownerUserId,
      "--label",
      "u",
      "--scopes",
      "READ_BANK",
    ]);
    expect(user).toMatchObject({ key: expect.stringMatching(/^crun_/), kind: "USER" });
    await expect(
      createPartner(db, { name: "Bad owner", ownerEmail: "bad" }, TEST_NOW),
    ).rejects.toMatchObject({ code: "invalid_parameter", details: { parameter: "ownerEmail" } });
    const partner = await createPartner(db, { name: "CLI practice" }, TEST_NOW);
    await linkPartner(db, partner.id, org.id, TEST_NOW);
    const [p] = await keys(["create", "--partner", partner.id, "--label", "p", "--pinned", org.id]);
    expect(p).toMatchObject({ kind: "PARTNER", reach: "PINNED", pinnedOrgIds: [org.id] });
  });

  it.each([
    [["create", "--label", "x", "--scopes", "READ_BANK"], /exactly one of/],
    [
      ["create", "--org", "o", "--user", "u", "--label", "x", "--scopes", "READ_BANK"],
      /exactly one of/,
    ],
    [["create", "--org", "o", "--label", "x"], /--scopes is required/],
    [["create", "--org", "o", "--label", "x", "--scopes", "READ_NOPE"], /unknown scope/],
    [["create", "--org", "o", "--label", "x", "--scopes", "READ_SENSITIVE"], /--sensitive/],
    [
      ["create", "--partner", "p", "--label", "x", "--scopes", "READ_BANK"],
      /unknown flag --scopes/,
    ],
    [["create", "--partner", "p", "--label", "x", "--sensitive"], /unknown flag --sensitive/],
    [["create", "--org", "o", "--scopes", "READ_BANK"], /--label is required/],
    [["rotate"], /missing key prefix/],
    [["revoke", "not a prefix"], /not a key prefix/],
    [["list", "--partner", "p"], /unknown flag/],
    [["frobnicate"], /unknown subcommand/],
  ])("refuses bad arguments %j with a UsageError", async (argv, message) => {
    await expect(keys(argv)).rejects.toSatisfy(
      (e) => e instanceof UsageError && message.test((e as Error).message),
    );
  });
});
