import { describe, expect, it } from "vitest";
import { billingCommand } from "../../src/cli/commands/billing.ts";
import { runCommand } from "../helpers/cli.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

/* The operator commands of key governance (issue 26): billing's top-up refusal, keys, partners. */

describe(`governance commands (${testDriver})`, () => {
  it("billing set --auto-topup on refuses, with the reason, a plan or subscription that can never buy a pack", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db, { plan: "Free" });
    await expect(
      runCommand(billingCommand, ["set", "--org", org.id, "--auto-topup", "on"]),
    ).rejects.toThrow("automatic top-up cannot be turned on: the Free plan has no top-up packs");
    const [shown] = await runCommand(billingCommand, ["show", "--org", org.id]);
    expect(shown).toMatchObject({
      autoTopUp: false,
      autoTopUpBlocker: expect.stringMatching(/^the Free plan has no top-up packs/),
    });
    await expect(
      runCommand(billingCommand, [
        "set",
        "--org",
        org.id,
        "--plan",
        "pocket",
        "--status",
        "canceled",
        "--auto-topup",
        "on",
      ]),
    ).rejects.toThrow("the subscription is canceled");

    const [on] = await runCommand(billingCommand, [
      "set",
      "--org",
      org.id,
      "--plan",
      "pocket",
      "--auto-topup",
      "on",
    ]);
    expect(on).toMatchObject({ plan: "Pocket", autoTopUp: true, autoTopUpTurnedOff: null });
    // Moving to a state that can never buy a pack turns it off, and says why.
    const [off] = await runCommand(billingCommand, [
      "set",
      "--org",
      org.id,
      "--status",
      "canceled",
    ]);
    expect(off).toMatchObject({
      status: "canceled",
      autoTopUp: false,
      autoTopUpTurnedOff: expect.stringMatching(/^the subscription is canceled/),
    });
  });
});
