import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys, billingAccounts, billingEvents, contacts } from "../../src/db/schema/index.ts";
import { setBilling } from "../../src/services/billing/set-billing.ts";
import { TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import { WebClient } from "./web-client.ts";
import { FIXTURE_PASSWORD, webOrg } from "./web-fixtures.ts";

/*
 * The settings screen's forms at their edges: bodies that cannot be parsed, forms acting on an
 * organisation without saying which, and an automatic top-up that could never buy a pack.
 */

const now = TEST_NOW;

async function signedInOwner() {
  const t = await testApp({ captureLogs: true });
  const a = await webOrg(t.db, now, `Forms ${Math.random().toString(36).slice(2, 6)}`);
  const owner = new WebClient(t.app);
  expect((await owner.signIn(a.owner.email, FIXTURE_PASSWORD)).status).toBe(303);
  return { t, a, owner };
}

/** A multipart body cut off before its closing boundary. */
const BROKEN_MULTIPART =
  '--xyz\r\nContent-Disposition: form-data; name="email"\r\n\r\nx@example.test';

function errorLines(logs: string[]): string[] {
  return logs.filter((l) => /"level":(50|60)/.test(l) || l.includes('"stack"'));
}

describe(`settings forms at their edges (${testDriver})`, () => {
  it("answers 400 to a malformed form body on every settings route, logging no error", async () => {
    const { t, owner } = await signedInOwner();
    await owner.get("/settings/keys");
    const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const bodies = [
      { "content-type": "multipart/form-data; boundary=xyz", body: BROKEN_MULTIPART },
      { "content-type": "multipart/form-data", body: "no boundary at all" },
    ];
    const routes = [
      "/settings/login",
      "/settings/logout",
      "/settings/org",
      "/settings/keys",
      "/settings/sensitive",
      "/settings/billing/auto-top-up",
    ];
    for (const path of routes) {
      for (const { body, ...headers } of bodies) {
        const res = await t.app.request(path, {
          method: "POST",
          headers: { ...headers, cookie },
          body,
        });
        expect(res.status, `${path} ${headers["content-type"]}`).toBe(400);
        expect(await res.text()).toContain("could not be read");
      }
    }
    expect(errorLines(t.logs)).toEqual([]);
    // The session survived: nothing was signed out or changed.
    expect((await owner.get("/settings/keys")).status).toBe(200);
  });

  it("refuses a form acting on an organisation without its organisation field", async () => {
    const { t, a, owner } = await signedInOwner();
    await owner.get("/settings/keys");
    const _csrf = owner.csrf();
    const key = await owner.post("/settings/keys", {
      _csrf,
      kind: "ORG",
      label: "No organisation field",
      scopes: "READ_BANK",
    });
    expect(key.status).toBe(400);
    expect(owner.lastHtml).toContain("does not say which organisation");
    const empty = await owner.post("/settings/keys", {
      _csrf,
      _org: "",
      kind: "USER",
      label: "No organisation field",
      scopes: "READ_BANK",
    });
    expect(empty.status).toBe(400);
    expect(
      await t.db.select().from(apiKeys).where(eq(apiKeys.label, "No organisation field")),
    ).toHaveLength(0);

    const flag = await owner.post("/settings/sensitive", {
      _csrf,
      kind: "contact",
      id: a.ledger.secret.id,
      sensitive: "on",
    });
    expect(flag.status).toBe(400);
    const [contact] = await t.db.select().from(contacts).where(eq(contacts.id, a.ledger.secret.id));
    expect(contact?.isSensitive).toBe(false);

    const topUp = await owner.post("/settings/billing/auto-top-up", { _csrf, autoTopUp: "on" });
    expect(topUp.status).toBe(400);
    const [account] = await t.db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, a.org.billingAccountId));
    expect(account?.autoTopUp).toBe(false);

    // An organisation key's rotate and revoke act in its organisation's name too.
    const made = await owner.post("/settings/keys", {
      _csrf,
      _org: a.org.id,
      kind: "ORG",
      label: "Org key",
      scopes: "READ_BANK",
    });
    expect(made.status).toBe(200);
    const prefix = /cr_live_([0-9a-z]{10})_/.exec(owner.lastHtml)?.[1] ?? "";
    for (const action of ["rotate", "revoke"]) {
      expect((await owner.post(`/settings/keys/${prefix}/${action}`, { _csrf })).status).toBe(400);
    }
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.prefix, prefix));
    expect(row?.revokedAt).toBeNull();
  });

  it("refuses automatic top-up where no pack can ever be bought, with the reason", async () => {
    const { t, a, owner } = await signedInOwner();
    await setBilling(t.db, { orgId: a.org.id, plan: "Free", status: "active" }, now);
    await owner.get("/settings/billing");
    expect(owner.lastHtml).toContain("Unavailable: the Free plan has no top-up packs");
    expect(owner.lastHtml).not.toContain("Turn on");
    const refused = await owner.post("/settings/billing/auto-top-up", {
      _csrf: owner.csrf(),
      _org: a.org.id,
      autoTopUp: "on",
    });
    expect(refused.status).toBe(400);
    expect(owner.lastHtml).toContain("automatic top-up cannot be turned on: the Free plan");
    const events = await t.db
      .select()
      .from(billingEvents)
      .where(eq(billingEvents.billingAccountId, a.org.billingAccountId));
    expect(events.filter((e) => e.kind === "auto_top_up_changed")).toHaveLength(0);

    // On a paid plan it turns on; a canceled subscription refuses it again.
    await setBilling(t.db, { orgId: a.org.id, plan: "Pocket" }, now);
    await owner.get("/settings/billing");
    expect(
      (await owner.post("/settings/billing/auto-top-up", { ...owner.orgForm(), autoTopUp: "on" }))
        .status,
    ).toBe(303);
    await owner.get("/settings/billing");
    expect(owner.lastHtml).toContain("Turn off");
  });

  it("setBilling refuses top-up on Free or a canceled subscription, and turns it off on a move there", async () => {
    const { db } = await testApp();
    const org = await createTestOrg(db, { plan: "Free", now });
    await expect(setBilling(db, { orgId: org.id, autoTopUp: true }, now)).rejects.toThrow(
      "automatic top-up cannot be turned on: the Free plan has no top-up packs",
    );
    await expect(
      setBilling(db, { orgId: org.id, plan: "Wallet", status: "canceled", autoTopUp: true }, now),
    ).rejects.toThrow("the subscription is canceled");
    // Nothing of a refused call is kept.
    const unchanged = await setBilling(db, { orgId: org.id }, now);
    expect([unchanged.plan, unchanged.status, unchanged.autoTopUp]).toEqual([
      "Free",
      "active",
      false,
    ]);
    const on = await setBilling(db, { orgId: org.id, plan: "Wallet", autoTopUp: true }, now);
    expect([on.autoTopUp, on.autoTopUpBlocker, on.autoTopUpTurnedOff]).toEqual([true, null, null]);
    // A trial is not refused: packs are bought once it is active.
    const trial = await setBilling(
      db,
      { orgId: org.id, status: "trialing", trialEnds: "2026-04-01", autoTopUp: true },
      now,
    );
    expect(trial.autoTopUp).toBe(true);
    const down = await setBilling(db, { orgId: org.id, plan: "Free" }, now);
    expect(down.autoTopUp).toBe(false);
    expect(down.autoTopUpTurnedOff).toMatch(/^the Free plan has no top-up packs/);
    expect(down.autoTopUpBlocker).toBe(down.autoTopUpTurnedOff);
    const [event] = await db
      .select()
      .from(billingEvents)
      .where(eq(billingEvents.billingAccountId, org.billingAccountId))
      .orderBy(billingEvents.id)
      .then((rows) => rows.filter((e) => e.kind === "auto_top_up_changed").slice(-1));
    expect(event?.details).toMatchObject({
      from: true,
      to: false,
      reason: down.autoTopUpTurnedOff,
    });
  });
});
