import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organisations, seats } from "../../src/db/schema/index.ts";
import { createCustomScenario, listScenarios } from "../../src/services/forecast/scenarios.ts";
import { TEST_NOW, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { WebClient } from "./web-client.ts";
import { FIXTURE_PASSWORD, webOrg } from "./web-fixtures.ts";

/* Scenarios are an analysis page: on the Free plan its changes are refused like the page. */
describe(`scenario changes on the Free plan (${testDriver})`, () => {
  it("answers every scenario POST of a Free-plan member with the Upgrade screen and changes nothing", async () => {
    const t = await testApp();
    const a = await webOrg(t.db, TEST_NOW, `Plans ${Math.random().toString(36).slice(2, 6)}`);
    const custom = await createCustomScenario(t.db, {
      orgId: a.org.id,
      name: "Slow payers",
      assumptions: { basedOn: "BASE", paymentLagDays: 14 },
      now: TEST_NOW,
    });
    const owner = new WebClient(t.app);
    expect((await owner.signIn(a.owner.email, FIXTURE_PASSWORD)).status).toBe(303);
    expect((await owner.get("/settings/scenarios")).status).toBe(200);
    expect(owner.lastHtml).toContain("Slow payers");
    const form = owner.orgForm();

    const [org] = await t.db
      .select({ billing: organisations.billingAccountId })
      .from(organisations)
      .where(eq(organisations.id, a.org.id));
    await t.db
      .update(seats)
      .set({ plan: "Free" })
      .where(eq(seats.billingAccountId, org?.billing ?? ""));
    const before = await listScenarios(t.db, a.org.id);

    expect((await owner.get("/settings/scenarios")).status).toBe(200);
    expect(owner.lastHtml).toContain('id="upgrade"');
    const posts: [string, Record<string, string>][] = [
      ["/settings/scenarios", { ...form, name: "Free try", basedOn: "BASE" }],
      [`/settings/scenarios/${custom.id}`, { ...form, name: "Renamed on Free" }],
      [`/settings/scenarios/${custom.id}/delete`, { ...form, confirm: "yes" }],
    ];
    for (const [path, fields] of posts) {
      const res = await owner.post(path, fields);
      expect(res.status, path).toBe(403);
      expect(owner.lastHtml, path).toContain('id="upgrade"');
    }
    expect(await listScenarios(t.db, a.org.id)).toEqual(before);
  });
});
