import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys, memberships, organisations, partnerLinks } from "../../src/db/schema/index.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { createPartner, linkPartner } from "../../src/services/partners/partners.ts";
import { getJson, TEST_NOW, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { WebClient } from "./web-client.ts";
import { FIXTURE_PASSWORD, fixtureUser, webOrg } from "./web-fixtures.ts";

/*
 * Key governance on the settings screen (issue 26): READ_SENSITIVE on personal keys, the owner's
 * view and revocation of every key reaching the organisation, the owner's setting, partner
 * owners, and partner links made by the organisation's owners and admins.
 */

const now = TEST_NOW;

/**
 * The app runs the key cache and batched audit writer of production but no metering: these
 * members and partners hold no seats (seats: test/integration/metering-pipeline.test.ts), and a
 * 403 `no_billable_seat` would pass for the governance 403s asserted here.
 */
async function scene() {
  const t = await testApp({ metering: noopMetering });
  const a = await webOrg(t.db, now, `Alpha ${Math.random().toString(36).slice(2, 6)}`);
  const b = await webOrg(t.db, now, `Beta ${Math.random().toString(36).slice(2, 6)}`);
  const admin = await fixtureUser(t.db, now, { orgId: a.org.id, role: "admin", label: "admin" });
  const member = await fixtureUser(t.db, now, { orgId: a.org.id, role: "member", label: "member" });
  const signedIn = async (email: string) => {
    const client = new WebClient(t.app);
    expect((await client.signIn(email, FIXTURE_PASSWORD)).status).toBe(303);
    return client;
  };
  const keyRow = async (label: string) => {
    const [row] = await t.db.select().from(apiKeys).where(eq(apiKeys.label, label));
    return row;
  };
  return { t, a, b, admin, member, signedIn, keyRow };
}

const PERSONAL = (label: string) => ({ kind: "USER", label, scopes: "READ_CONTACTS" });

describe(`key governance on the settings screen (${testDriver})`, () => {
  it("lets owners and admins give a personal key READ_SENSITIVE, and refuses a member", async () => {
    const { t, a, admin, member, signedIn, keyRow } = await scene();
    const m = await signedIn(member.email);
    await m.get("/settings/keys");
    expect(m.lastHtml).toMatch(/id="include-sensitive"[^>]*disabled/);
    expect(m.lastHtml).toContain("only owners and admins may give a personal key READ_SENSITIVE");
    const refused = await m.post("/settings/keys", {
      ...m.orgForm(),
      ...PERSONAL("member sensitive"),
      sensitive: "on",
    });
    expect(refused.status).toBe(403);
    expect(m.lastHtml).toContain("Not created: only owners and admins");
    expect(await keyRow("member sensitive")).toBeUndefined();
    // Without the box a member still makes personal keys.
    await m.get("/settings/keys");
    expect(
      (await m.post("/settings/keys", { ...m.orgForm(), ...PERSONAL("member plain") })).status,
    ).toBe(200);
    expect((await keyRow("member plain"))?.scopes).toEqual(["READ_CONTACTS"]);

    const ad = await signedIn(admin.email);
    await ad.get("/settings/keys");
    expect(ad.lastHtml).not.toMatch(/id="include-sensitive"[^>]*disabled/);
    const made = await ad.post("/settings/keys", {
      ...ad.orgForm(),
      ...PERSONAL("admin sensitive"),
      sensitive: "on",
    });
    expect(made.status).toBe(200);
    expect((await keyRow("admin sensitive"))?.scopes).toEqual(["READ_CONTACTS", "READ_SENSITIVE"]);

    // The owner forbids it on personal and partner keys: refused for personal keys, even the
    // owner's; organisation keys still take it.
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/keys");
    expect(
      (
        await owner.post("/settings/keys/sensitive-restriction", {
          ...owner.orgForm(),
          restrict: "on",
        })
      ).status,
    ).toBe(303);
    await owner.get("/settings/keys");
    expect(owner.lastHtml).toContain("Forbidden");
    const personal = await owner.post("/settings/keys", {
      ...owner.orgForm(),
      ...PERSONAL("owner personal sensitive"),
      sensitive: "on",
    });
    expect(personal.status).toBe(403);
    expect(owner.lastHtml).toContain("allows READ_SENSITIVE only on organisation keys");
    await owner.get("/settings/keys");
    const orgKey = await owner.post("/settings/keys", {
      ...owner.orgForm(),
      kind: "ORG",
      label: "org sensitive",
      scopes: "READ_CONTACTS",
      sensitive: "on",
    });
    expect(orgKey.status).toBe(200);
    expect((await keyRow("org sensitive"))?.scopes).toContain("READ_SENSITIVE");
    // The setting is the owner's alone.
    await ad.get("/settings/keys");
    expect(ad.lastHtml).not.toContain("sensitive-restriction");
    expect(
      (await ad.post("/settings/keys/sensitive-restriction", { ...ad.orgForm(), restrict: "off" }))
        .status,
    ).toBe(403);
    const [row] = await t.db
      .select({ r: organisations.restrictSensitiveToOrgKeys })
      .from(organisations)
      .where(eq(organisations.id, a.org.id));
    expect(row?.r).toBe(true);
  });

  it("shows the owner every key reaching the organisation and revokes one for it only", async () => {
    const { t, a, b, admin, member, signedIn } = await scene();
    // The member also belongs to B: their personal key reaches both.
    await t.db
      .insert(memberships)
      .values({ orgId: b.org.id, userId: member.userId, role: "owner", createdAt: now });
    const personal = await createApiKey(
      t.db,
      { kind: "USER", userId: member.userId, label: "member laptop", scopes: ["READ_CONTACTS"] },
      now,
    );
    const partner = await createPartner(t.db, { name: "Ledger & Co" }, now);
    await linkPartner(t.db, partner.id, a.org.id, now);
    await linkPartner(t.db, partner.id, b.org.id, now);
    const partnerKey = await createApiKey(
      t.db,
      {
        kind: "PARTNER",
        partnerId: partner.id,
        label: "adviser",
        pinnedOrgIds: [a.org.id, b.org.id],
      },
      now,
    );
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/keys");
    const rowOf = (prefix: string) =>
      new RegExp(`<tr data-prefix="${prefix}">[\\s\\S]*?</tr>`).exec(owner.lastHtml)?.[0] ?? "";
    expect(owner.lastHtml).toContain('id="member-keys"');
    expect(rowOf(personal.prefix)).toContain(member.email);
    expect(rowOf(personal.prefix)).toContain("Every organisation its holder belongs to");
    expect(rowOf(partnerKey.prefix)).toContain("Ledger &amp; Co, created by");
    expect(rowOf(partnerKey.prefix)).toContain("Pinned: ");
    expect(rowOf(partnerKey.prefix)).toContain("READ_SENSITIVE");

    // Admins and members see neither, and cannot revoke them here.
    for (const email of [admin.email, member.email]) {
      const other = await signedIn(email);
      await other.get("/settings/keys");
      expect(other.lastHtml).not.toContain(partnerKey.prefix);
      expect((await other.get(`/settings/keys/${partnerKey.prefix}/revoke-here`)).status).toBe(403);
    }

    for (const k of [personal, partnerKey]) {
      const confirm = await owner.get(`/settings/keys/${k.prefix}/revoke-here`);
      expect(confirm.status).toBe(200);
      expect(owner.lastHtml).toContain(`Revoke this key for ${a.org.name.replace("&", "&amp;")}?`);
      const done = await owner.post(`/settings/keys/${k.prefix}/revoke-here`, owner.orgForm());
      expect(done.status).toBe(303);
      expect(done.headers.get("location")).toBe(`/settings/keys?revokedHere=${k.prefix}`);
      const inA = await getJson(t.app, `/api/agent/orgs/${a.org.id}/contacts`, k.key);
      const inB = await getJson(t.app, `/api/agent/orgs/${b.org.id}/contacts`, k.key);
      expect([inA.status, inB.status], k.label).toEqual([403, 200]);
    }
    await owner.get("/settings/keys");
    const revokedTable =
      /<table id="revoked-keys">[\s\S]*<\/table>/.exec(owner.lastHtml)?.[0] ?? "";
    expect(revokedTable).toContain(personal.prefix);
    expect(revokedTable).toContain(partnerKey.prefix);
    expect(revokedTable).toContain("only</span>");
    expect(owner.lastHtml).not.toContain(`/settings/keys/${personal.prefix}/revoke-here`);
    // Twice: already revoked here.
    expect((await owner.get(`/settings/keys/${personal.prefix}/revoke-here`)).status).toBe(409);
    // B's owner (the member) still sees the key active in B.
    const bOwner = await signedIn(b.owner.email);
    await bOwner.get("/settings/keys");
    expect(bOwner.lastHtml).toMatch(
      new RegExp(`<table id="member-keys">[\\s\\S]*${personal.prefix}[\\s\\S]*</table>`),
    );
  });

  it("lets a partner's owners add, remove and hand over ownership; a removed owner's keys stop", async () => {
    const { t, a, member, signedIn } = await scene();
    const alice = await fixtureUser(t.db, now, { label: "alice" });
    const bob = await fixtureUser(t.db, now, { label: "bob" });
    const partner = await createPartner(
      t.db,
      { name: "Ledger & Co", ownerEmail: alice.email },
      now,
    );
    await linkPartner(t.db, partner.id, a.org.id, now);
    const al = await signedIn(alice.email);
    await al.get("/settings/partners");
    expect(al.lastHtml).toContain("the only owner");
    const added = await al.post(`/settings/partners/${partner.id}/owners`, {
      _csrf: al.csrf(),
      email: bob.email,
    });
    expect(added.status).toBe(303);
    // Unknown users are refused with a message, not a crash.
    const unknown = await al.post(`/settings/partners/${partner.id}/owners`, {
      _csrf: al.csrf(),
      email: "nobody@example.test",
    });
    expect(unknown.status).toBe(404);
    expect(al.lastHtml).toContain("cashrunway user create");

    // Alice creates a key as herself; Bob removes her; the key answers 401 from then on.
    await al.get("/settings/partners");
    const created = await al.post(`/settings/partners/${partner.id}/keys`, {
      _csrf: al.csrf(),
      label: "Alice's agent",
      reach: "ALL_LINKED",
    });
    expect(created.status).toBe(200);
    const secret = /crun_[0-9a-z]{10}_[0-9a-z]{38}/.exec(al.lastHtml)?.[0] ?? "";
    expect((await getJson(t.app, "/api/agent/orgs", secret)).status).toBe(200);
    const bo = await signedIn(bob.email);
    await bo.get("/settings/partners");
    expect(bo.lastHtml).toContain(alice.email);
    expect(bo.lastHtml).toContain("stops 1 key");
    const removed = await bo.post(
      `/settings/partners/${partner.id}/owners/${alice.userId}/remove`,
      {
        _csrf: bo.csrf(),
      },
    );
    expect(removed.status).toBe(303);
    expect((await getJson(t.app, "/api/agent/orgs", secret)).status).toBe(401);
    await bo.get("/settings/partners");
    expect(bo.lastHtml).toContain("its creator no longer owns the partner");
    const prefix = secret.split("_")[1] ?? "";
    await t.flushAudit(); // the batched writer commits the refusal's row
    expect((await bo.get(`/settings/keys/${prefix}/audit`)).status).toBe(200);
    expect(bo.lastHtml).toContain("refused: its creator no longer owns the partner");
    // Alice no longer sees the partner; the last owner cannot be removed.
    await al.get("/settings/partners");
    expect(al.lastHtml).toContain("You do not run a partner practice.");
    await bo.get("/settings/partners");
    expect(bo.lastHtml).toContain("the only owner");
    const last = await bo.post(`/settings/partners/${partner.id}/owners/${bob.userId}/remove`, {
      _csrf: bo.csrf(),
    });
    expect(last.status).toBe(400);
    // Bob hands over to Alice: hers works again, he is out.
    await bo.get("/settings/partners");
    const moved = await bo.post(`/settings/partners/${partner.id}/transfer`, {
      _csrf: bo.csrf(),
      email: alice.email,
    });
    expect(moved.status).toBe(303);
    expect((await getJson(t.app, "/api/agent/orgs", secret)).status).toBe(200);
    await bo.get("/settings/partners");
    expect(bo.lastHtml).toContain("You do not run a partner practice.");
    // Someone who does not own the partner cannot touch it.
    const outsider = await signedIn(member.email);
    await outsider.get("/settings/partners");
    expect(
      (
        await outsider.post(`/settings/partners/${partner.id}/owners`, {
          _csrf: outsider.csrf(),
          email: member.email,
        })
      ).status,
    ).toBe(404);
  });

  it("lets the organisation's owners and admins link and unlink partners, not its members", async () => {
    const { t, a, admin, member, signedIn } = await scene();
    const partner = await createPartner(t.db, { name: "Ledger & Co" }, now);
    const key = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "p" },
      now,
    );
    const linked = async () =>
      (
        await t.db
          .select()
          .from(partnerLinks)
          .where(and(eq(partnerLinks.partnerId, partner.id), eq(partnerLinks.orgId, a.org.id)))
      ).length === 1;

    const m = await signedIn(member.email);
    await m.get("/settings/partners");
    expect(m.lastHtml).not.toContain('id="link-partner"');
    expect(
      (
        await m.post("/settings/partners/link", {
          ...{ _csrf: m.csrf(), _org: a.org.id },
          partnerId: partner.id,
        })
      ).status,
    ).toBe(403);
    expect(await linked()).toBe(false);

    const ad = await signedIn(admin.email);
    await ad.get("/settings/partners");
    const unknown = await ad.post("/settings/partners/link", {
      ...ad.orgForm(),
      partnerId: "prt_nope",
    });
    expect(unknown.status).toBe(404);
    await ad.get("/settings/partners");
    expect(
      (await ad.post("/settings/partners/link", { ...ad.orgForm(), partnerId: partner.id })).status,
    ).toBe(303);
    expect(await linked()).toBe(true);
    expect((await getJson(t.app, `/api/agent/orgs/${a.org.id}/contacts`, key.key)).status).toBe(
      200,
    );

    // The member sees the link but no unlink button, and cannot post one.
    await m.get("/settings/partners");
    expect(m.lastHtml).toContain("Ledger &amp; Co");
    expect(m.lastHtml).not.toContain(`/settings/partners/${partner.id}/unlink`);
    expect(
      (await m.post(`/settings/partners/${partner.id}/unlink`, { _csrf: m.csrf(), _org: a.org.id }))
        .status,
    ).toBe(403);
    // Without its organisation field the form is refused.
    expect(
      (await ad.post(`/settings/partners/${partner.id}/unlink`, { _csrf: ad.csrf() })).status,
    ).toBe(400);
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/partners");
    expect(
      (await owner.post(`/settings/partners/${partner.id}/unlink`, owner.orgForm())).status,
    ).toBe(303);
    expect(await linked()).toBe(false);
    expect((await getJson(t.app, `/api/agent/orgs/${a.org.id}/contacts`, key.key)).status).toBe(
      403,
    );
  });
});
