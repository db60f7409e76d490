import { and, desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { keysCommand } from "../../src/cli/commands/keys.ts";
import { orgCommand } from "../../src/cli/commands/org.ts";
import { partnerCommand } from "../../src/cli/commands/partner.ts";
import type { Db } from "../../src/db/client.ts";
import { auditEvents, contacts, memberships } from "../../src/db/schema/index.ts";
import { noopMetering } from "../../src/http/pipeline/metering.ts";
import { recordAgentRequests } from "../../src/services/audit/audit-writer.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { listOrgKeyReach, revokeKeyForOrg } from "../../src/services/keys/govern-keys.ts";
import { VerifiedKeyCache } from "../../src/services/keys/verified-key-cache.ts";
import {
  addPartnerOwner,
  createPartner,
  linkPartner,
  removePartnerOwner,
  transferPartner,
} from "../../src/services/partners/partners.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import { webOrg } from "../e2e/web-fixtures.ts";
import { getJson, TEST_NOW, type TestApp, testApp } from "../helpers/api.ts";
import { runCommand } from "../helpers/cli.ts";
import { testDriver } from "../helpers/test-db.ts";

/*
 * Key governance (issue 26) through the agent API, the services and the CLI: who may hold
 * READ_SENSITIVE where, an owner's view and revocation of every key reaching the organisation,
 * and partner keys that stop with their creator's ownership.
 */

const now = TEST_NOW;
const READ: ("READ_CONTACTS" | "READ_BANK")[] = ["READ_CONTACTS", "READ_BANK"];

interface ContactsBody {
  contacts: { name: string }[];
  redactedItemCount: number;
}

let n = 0;
async function user(db: Db, label: string, memberOf: [string, "owner" | "admin" | "member"][]) {
  n += 1;
  const email = `${label}-${n}-${Math.random().toString(36).slice(2, 7)}@example.test`;
  const { id } = await createUser(db, { email }, now);
  for (const [orgId, role] of memberOf) await createUser(db, { email, orgId, role }, now);
  return { id, email };
}

/**
 * Two organisations, each with a flagged contact ("Quiet Holdings"). The app runs the key cache
 * and the batched audit writer of production, but no metering: these users and partners hold no
 * seats (seats are metering-pipeline.test.ts's subject), and a 403 `no_billable_seat` would
 * pass for the governance 403s this suite asserts.
 */
async function world() {
  const t = await testApp({ metering: noopMetering });
  const a = await webOrg(t.db, now, `Alpha ${Math.random().toString(36).slice(2, 6)}`);
  const b = await webOrg(t.db, now, `Beta ${Math.random().toString(36).slice(2, 6)}`);
  for (const o of [a, b]) {
    await t.db
      .update(contacts)
      .set({ isSensitive: true })
      .where(eq(contacts.id, o.ledger.secret.id));
  }
  /** The contacts a key reads in `orgId`: names, and how many were withheld. */
  const contactsOf = async (key: string, orgId: string) => {
    const r = await getJson<ContactsBody>(t.app, `/api/agent/orgs/${orgId}/contacts`, key);
    if (r.status !== 200) return r.status;
    return { names: r.body.contacts.map((c) => c.name).sort(), withheld: r.body.redactedItemCount };
  };
  const SEES_ALL = { names: ["Acme Pty Ltd", "Quiet Holdings"], withheld: 0 };
  const REDACTED = { names: ["Acme Pty Ltd"], withheld: 1 };
  return { t, a, b, contactsOf, SEES_ALL, REDACTED };
}

async function lastAudit(t: TestApp, keyId: string) {
  await t.flushAudit();
  const [row] = await t.db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.keyId, keyId))
    .orderBy(desc(auditEvents.id))
    .limit(1);
  return row;
}

describe(`key governance (${testDriver})`, () => {
  it("lets only owners and admins mint a personal key with READ_SENSITIVE (service and CLI)", async () => {
    const { t, a } = await world();
    const member = await user(t.db, "member", [[a.org.id, "member"]]);
    const admin = await user(t.db, "admin", [[a.org.id, "admin"]]);
    const personal = (userId: string, extra: Record<string, unknown> = {}) =>
      createApiKey(
        t.db,
        { kind: "USER", userId, label: "p", scopes: ["READ_CONTACTS"], sensitive: true, ...extra },
        now,
      );
    await expect(personal(member.id)).rejects.toThrow(
      "only owners and admins may create a personal key with READ_SENSITIVE",
    );
    await expect(personal(member.id, { mintedInOrgId: a.org.id })).rejects.toThrow(
      "not an owner or admin here",
    );
    expect((await personal(admin.id)).scopes).toEqual(["READ_CONTACTS", "READ_SENSITIVE"]);
    // Without READ_SENSITIVE a member mints as before.
    const plain = await createApiKey(
      t.db,
      { kind: "USER", userId: member.id, label: "plain", scopes: ["READ_CONTACTS"] },
      now,
    );
    expect(plain.scopes).toEqual(["READ_CONTACTS"]);

    const cli = (userId: string) =>
      runCommand(keysCommand, [
        "create",
        "--user",
        userId,
        "--label",
        "cli",
        "--scopes",
        "READ_CONTACTS",
        "--sensitive",
      ]);
    await expect(cli(member.id)).rejects.toThrow("only owners and admins may create");
    const [made] = await cli(admin.id);
    expect(made).toMatchObject({ kind: "USER", scopes: ["READ_CONTACTS", "READ_SENSITIVE"] });

    // The organisation's setting forbids it on personal keys, even for its owner.
    await runCommand(orgCommand, ["set", "--org", a.org.id, "--restrict-sensitive", "on"]);
    await expect(cli(admin.id)).rejects.toThrow("restricts READ_SENSITIVE to organisation keys");
    await expect(personal(a.owner.userId, { mintedInOrgId: a.org.id })).rejects.toThrow(
      "restricts READ_SENSITIVE to organisation keys",
    );
    // Organisation keys are not concerned.
    const orgKey = await createApiKey(
      t.db,
      { kind: "ORG", orgId: a.org.id, label: "o", scopes: ["READ_CONTACTS"], sensitive: true },
      now,
    );
    expect(orgKey.scopes).toContain("READ_SENSITIVE");
  });

  it("applies a personal key's READ_SENSITIVE only where its holder is an owner or admin, and drops it at once on demotion", async () => {
    const { t, a, b, contactsOf, SEES_ALL, REDACTED } = await world();
    // An admin of A who is a mere member of B.
    const holder = await user(t.db, "holder", [
      [a.org.id, "admin"],
      [b.org.id, "member"],
    ]);
    const key = await createApiKey(
      t.db,
      { kind: "USER", userId: holder.id, label: "k", scopes: READ, sensitive: true },
      now,
    );
    expect(await contactsOf(key.key, a.org.id)).toEqual(SEES_ALL);
    expect((await lastAudit(t, key.id))?.sensitive).toBe(true);
    expect(await contactsOf(key.key, b.org.id)).toEqual(REDACTED);
    expect((await lastAudit(t, key.id))?.sensitive).toBe(false);

    // Demoted in A: the very next request reads A without it.
    await createUser(t.db, { email: holder.email, orgId: a.org.id, role: "member" }, now);
    expect(await contactsOf(key.key, a.org.id)).toEqual(REDACTED);
    expect((await lastAudit(t, key.id))?.sensitive).toBe(false);
    // Promoted again, it applies again (the key itself never changed).
    await createUser(t.db, { email: holder.email, orgId: a.org.id, role: "owner" }, now);
    expect(await contactsOf(key.key, a.org.id)).toEqual(SEES_ALL);
    // Leaving the organisation loses it altogether (as before).
    await t.db
      .delete(memberships)
      .where(and(eq(memberships.orgId, a.org.id), eq(memberships.userId, holder.id)));
    expect(await contactsOf(key.key, a.org.id)).toBe(403);
  });

  it("lets the owner forbid READ_SENSITIVE on personal and partner keys; organisation keys keep it", async () => {
    const { t, a, contactsOf, SEES_ALL, REDACTED } = await world();
    const personal = await createApiKey(
      t.db,
      { kind: "USER", userId: a.owner.userId, label: "mine", scopes: READ, sensitive: true },
      now,
    );
    const orgKey = await createApiKey(
      t.db,
      { kind: "ORG", orgId: a.org.id, label: "org", scopes: READ, sensitive: true },
      now,
    );
    const partner = await createPartner(t.db, { name: "Ledger & Co" }, now);
    await linkPartner(t.db, partner.id, a.org.id, now);
    const partnerKey = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "adviser" },
      now,
    );
    for (const k of [personal, orgKey, partnerKey]) {
      expect(await contactsOf(k.key, a.org.id), k.label).toEqual(SEES_ALL);
    }
    const [on] = await runCommand(orgCommand, [
      "set",
      "--org",
      a.org.id,
      "--restrict-sensitive",
      "on",
    ]);
    expect(on).toEqual({ orgId: a.org.id, restrictSensitiveToOrgKeys: true });
    expect(await contactsOf(personal.key, a.org.id)).toEqual(REDACTED);
    expect(await contactsOf(partnerKey.key, a.org.id)).toEqual(REDACTED);
    expect((await lastAudit(t, partnerKey.id))?.sensitive).toBe(false);
    expect(await contactsOf(orgKey.key, a.org.id)).toEqual(SEES_ALL);
    // The listing says so, key by key.
    const reach = await listOrgKeyReach(t.db, a.org.id);
    const here = (id: string) => reach.keys.find((k) => k.id === id);
    expect(here(partnerKey.id)?.scopes).toContain("READ_SENSITIVE");
    expect(here(partnerKey.id)?.scopesHere).not.toContain("READ_SENSITIVE");
    expect(here(orgKey.id)?.scopesHere).toContain("READ_SENSITIVE");
    // Switched off, existing keys have it again.
    await runCommand(orgCommand, ["set", "--org", a.org.id, "--restrict-sensitive", "off"]);
    expect(await contactsOf(partnerKey.key, a.org.id)).toEqual(SEES_ALL);
  });

  it("lists every key reaching the organisation and revokes a member's and a partner's key for it only", async () => {
    const { t, a, b, contactsOf } = await world();
    // A member of A who owns B: their personal key reaches both.
    const member = await user(t.db, "member", [
      [a.org.id, "member"],
      [b.org.id, "owner"],
    ]);
    const personal = await createApiKey(
      t.db,
      { kind: "USER", userId: member.id, label: "laptop", scopes: READ },
      now,
    );
    const partner = await createPartner(t.db, { name: "Ledger & Co" }, now);
    await linkPartner(t.db, partner.id, a.org.id, now);
    await linkPartner(t.db, partner.id, b.org.id, now);
    const live = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "live" },
      now,
    );
    const pinnedB = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "pinned B", pinnedOrgIds: [b.org.id] },
      now,
    );
    const orgKey = await createApiKey(
      t.db,
      { kind: "ORG", orgId: a.org.id, label: "a's own", scopes: READ },
      now,
    );
    const other = await createApiKey(
      t.db,
      { kind: "ORG", orgId: b.org.id, label: "b's own", scopes: READ },
      now,
    );

    const [listed] = await runCommand(keysCommand, ["list", "--org", a.org.id]);
    const keys = (listed?.keys ?? []) as { prefix: string; holder: string; statusHere: string }[];
    const byPrefix = new Map(keys.map((k) => [k.prefix, k]));
    expect(byPrefix.get(orgKey.prefix)).toMatchObject({ holder: "organisation" });
    expect(byPrefix.get(personal.prefix)).toMatchObject({
      holder: "member",
      creatorEmail: member.email,
      creatorRole: "member",
      scopes: READ.slice().sort(),
      lastUsedAt: null,
      reach: "USER_MEMBERSHIPS",
      statusHere: "active",
    });
    expect(byPrefix.get(live.prefix)).toMatchObject({
      holder: "partner",
      partnerName: "Ledger & Co",
      reach: "ALL_LINKED",
      statusHere: "active",
    });
    // Not A's: B's own key, and a partner key pinned to B only.
    expect(byPrefix.has(other.prefix)).toBe(false);
    expect(byPrefix.has(pinnedB.prefix)).toBe(false);

    for (const k of [personal, live]) {
      expect(await contactsOf(k.key, a.org.id), k.label).not.toBe(403);
      const [r] = await runCommand(keysCommand, ["revoke", k.prefix, "--org", a.org.id]);
      expect(r).toMatchObject({ prefix: k.prefix, revoked: "organisation", orgId: a.org.id });
      expect(await contactsOf(k.key, a.org.id), k.label).toBe(403);
      // Its other organisation is not this owner's to decide.
      expect(await contactsOf(k.key, b.org.id), k.label).not.toBe(403);
    }
    // Irreversible: a new membership or link does not bring it back; twice is refused.
    await linkPartner(t.db, partner.id, a.org.id, now);
    expect(await contactsOf(live.key, a.org.id)).toBe(403);
    await expect(
      revokeKeyForOrg(t.db, { prefix: live.prefix, orgId: a.org.id, byUserId: null }, now),
    ).rejects.toThrow("already revoked for this organisation");
    // A key that does not reach A is not A's owner's to revoke, and is not confirmed to exist.
    await expect(
      revokeKeyForOrg(t.db, { prefix: other.prefix, orgId: a.org.id, byUserId: null }, now),
    ).rejects.toThrow("not found");
    const [after] = await runCommand(keysCommand, ["list", "--org", a.org.id]);
    const status = new Map(
      ((after?.keys ?? []) as { prefix: string; statusHere: string }[]).map((k) => [
        k.prefix,
        k.statusHere,
      ]),
    );
    expect([status.get(personal.prefix), status.get(live.prefix)]).toEqual([
      "revoked_here",
      "revoked_here",
    ]);
    // An organisation key is revoked outright.
    const [own] = await runCommand(keysCommand, ["revoke", orgKey.prefix, "--org", a.org.id]);
    expect(own).toMatchObject({ revoked: "key" });
    expect(await contactsOf(orgKey.key, a.org.id)).toBe(401);
  });

  it("stops a partner key when its creator stops owning the partner, with the reason in the audit row", async () => {
    const { t, a, contactsOf, SEES_ALL } = await world();
    const alice = await user(t.db, "alice", []);
    const bob = await user(t.db, "bob", []);
    const partner = await createPartner(
      t.db,
      { name: "Ledger & Co", ownerEmail: alice.email },
      now,
    );
    await linkPartner(t.db, partner.id, a.org.id, now);
    await addPartnerOwner(t.db, { partnerId: partner.id, email: bob.email }, now);
    // With two owners, the creator must be named.
    await expect(
      createApiKey(t.db, { kind: "PARTNER", partnerId: partner.id, label: "who?" }, now),
    ).rejects.toThrow("has 2 owners");
    const aliceKey = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "alice's", createdByUserId: alice.id },
      now,
    );
    const bobKey = await createApiKey(
      t.db,
      { kind: "PARTNER", partnerId: partner.id, label: "bob's", createdByUserId: bob.id },
      now,
    );
    expect(await contactsOf(aliceKey.key, a.org.id)).toEqual(SEES_ALL);

    const [removed] = await runCommand(partnerCommand, [
      "owner",
      "remove",
      "--partner",
      partner.id,
      "--email",
      alice.email,
    ]);
    expect(removed).toEqual({ partnerId: partner.id, userId: alice.id });
    await t.deps.keyCache?.poll(); // the CLI is another process: the server sees it at its next poll
    for (const path of [
      "/api/agent/orgs",
      "/api/agent/status",
      `/api/agent/orgs/${a.org.id}/contacts`,
    ]) {
      const r = await getJson(t.app, path, aliceKey.key);
      expect([r.status, r.text], path).toEqual([401, '{"error":"unauthorized"}']);
    }
    expect(await lastAudit(t, aliceKey.id)).toMatchObject({
      status: 401,
      reason: "creator_not_partner_owner",
      orgId: null,
    });
    // Bob's key is his: it keeps working.
    expect(await contactsOf(bobKey.key, a.org.id)).toEqual(SEES_ALL);
    expect((await lastAudit(t, bobKey.id))?.reason).toBeNull();
    // The owners' listing says why.
    const reach = await listOrgKeyReach(t.db, a.org.id);
    expect(reach.keys.find((k) => k.id === aliceKey.id)).toMatchObject({
      statusHere: "stopped",
      stoppedBecause: "creator_not_partner_owner",
    });

    // The last owner cannot be removed; a transfer hands over and stops the old owner's keys.
    await expect(
      removePartnerOwner(t.db, { partnerId: partner.id, userId: bob.id }),
    ).rejects.toThrow("only owner");
    const [moved] = await runCommand(partnerCommand, [
      "transfer",
      "--partner",
      partner.id,
      "--from",
      bob.email,
      "--to",
      alice.email,
    ]);
    expect(moved).toEqual({ partnerId: partner.id, fromUserId: bob.id, toUserId: alice.id });
    await t.deps.keyCache?.poll();
    expect((await getJson(t.app, "/api/agent/orgs", bobKey.key)).status).toBe(401);
    // Alice owns it again: the key she created works again (the check is live, like reach).
    expect(await contactsOf(aliceKey.key, a.org.id)).toEqual(SEES_ALL);
    const [owners] = await runCommand(partnerCommand, ["owners", "--partner", partner.id]);
    expect(owners?.owners).toMatchObject([{ email: alice.email }]);
  });

  it("keeps an audit row's reason through the batched writer the server uses", async () => {
    const { t, a } = await world();
    const key = await createApiKey(
      t.db,
      { kind: "ORG", orgId: a.org.id, label: "batched", scopes: READ },
      now,
    );
    const row = (requestId: string, reason: string | null) => ({
      keyId: key.id,
      orgId: null,
      method: "GET",
      route: "/api/agent/orgs",
      status: reason ? 401 : 200,
      sensitive: false,
      reason,
      requestId,
      at: now,
    });
    await recordAgentRequests(t.db, [
      row("req-a", null),
      row("req-b", "creator_not_partner_owner"),
      { ...row("req-c", null), reason: undefined },
    ]);
    const rows = await t.db
      .select({ requestId: auditEvents.requestId, reason: auditEvents.reason })
      .from(auditEvents)
      .where(eq(auditEvents.keyId, key.id))
      .orderBy(auditEvents.requestId);
    expect(rows).toEqual([
      { requestId: "req-a", reason: null },
      { requestId: "req-b", reason: "creator_not_partner_owner" },
      { requestId: "req-c", reason: null },
    ]);
  });

  it("stops a cached partner key on every instance once its creator is removed", async () => {
    const { t, a } = await world();
    const cache = new VerifiedKeyCache(t.db, { pollMs: 3_600_000 });
    await cache.start();
    try {
      const cached = await testApp({ keyCache: cache, metering: noopMetering });
      const alice = await user(t.db, "alice", []);
      const partner = await createPartner(t.db, { name: "P", ownerEmail: alice.email }, now);
      await linkPartner(t.db, partner.id, a.org.id, now);
      const bob = await user(t.db, "bob", []);
      await addPartnerOwner(t.db, { partnerId: partner.id, email: bob.email }, now);
      const key = await createApiKey(
        t.db,
        { kind: "PARTNER", partnerId: partner.id, label: "k", createdByUserId: alice.id },
        now,
      );
      expect((await getJson(cached.app, "/api/agent/orgs", key.key)).status).toBe(200);
      expect(cache.size).toBe(1);
      // Another process removes Alice; this one learns it from the auth epoch.
      await removePartnerOwner(t.db, { partnerId: partner.id, userId: alice.id });
      await cache.poll();
      expect((await getJson(cached.app, "/api/agent/orgs", key.key)).status).toBe(401);
      await transferPartner(
        t.db,
        { partnerId: partner.id, fromUserId: bob.id, toEmail: alice.email },
        now,
      );
      await cache.poll();
      expect((await getJson(cached.app, "/api/agent/orgs", key.key)).status).toBe(200);
    } finally {
      cache.stop();
    }
  });
});
