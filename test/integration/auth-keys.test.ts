import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { apiKeys } from "../../src/db/schema/index.ts";
import { generateApiKey, keyChecksum } from "../../src/domain/keys.ts";
import { PARTNER_SCOPES } from "../../src/domain/scopes.ts";
import { authenticateKey } from "../../src/services/keys/authenticate-key.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { listApiKeys } from "../../src/services/keys/list-api-keys.ts";
import { revokeApiKey } from "../../src/services/keys/revoke-api-key.ts";
import { rotateApiKey } from "../../src/services/keys/rotate-api-key.ts";
import { createPartner, linkPartner } from "../../src/services/partners/partners.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import { rowsOf, TEST_NOW } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

const now = TEST_NOW;
const later = new Date(now.getTime() + 60_000);

async function keyRow(db: Db, prefix: string) {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.prefix, prefix));
  if (!row) throw new Error(`no key ${prefix}`);
  return row;
}

describe(`API keys (${testDriver})`, () => {
  it("creates an organisation key owned by the organisation's owner, storing only the digest", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const k = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: " Claude — finance ", scopes: ["READ_BANK"] },
      now,
    );
    expect(k.key.startsWith(`cr_live_${k.prefix}_`)).toBe(true);
    expect(k).toMatchObject({ kind: "ORG", scopes: ["READ_BANK"], label: "Claude — finance" });
    const row = await keyRow(db, k.prefix);
    expect(row).toMatchObject({
      family: "cr_live",
      kind: "ORG",
      reach: "OWN_ORG",
      orgId: org.id,
      createdByUserId: org.ownerUserId,
      createdAt: now,
      revokedAt: null,
    });
    expect(row.secretDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(k.key.split("_").at(-1));
  });

  it("adds READ_SENSITIVE only through the sensitive option and refuses it in the scope list", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const sensitive = await createApiKey(
      db,
      {
        kind: "ORG",
        orgId: org.id,
        label: "s",
        scopes: ["READ_SUMMARY", "READ_BANK"],
        sensitive: true,
      },
      now,
    );
    // Canonical order, sensitive last.
    expect(sensitive.scopes).toEqual(["READ_BANK", "READ_SUMMARY", "READ_SENSITIVE"]);
    await expect(
      createApiKey(
        db,
        { kind: "ORG", orgId: org.id, label: "s", scopes: ["READ_BANK", "READ_SENSITIVE"] },
        now,
      ),
    ).rejects.toMatchObject({ code: "invalid_parameter", message: /sensitive option/ });
  });

  it.each([
    ["an empty label", { label: "  ", scopes: ["READ_BANK"] }, /label/],
    ["a label over 200 characters", { label: "x".repeat(201), scopes: ["READ_BANK"] }, /label/],
    ["no scope", { label: "l", scopes: [] }, /at least one scope/],
    [
      "only the sensitive option",
      { label: "l", scopes: [], sensitive: true },
      /at least one scope/,
    ],
    ["an unknown scope", { label: "l", scopes: ["READ_EVERYTHING"] }, /scopes/],
  ])("refuses a key with %s", async (_name, fields, message) => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    await expect(
      createApiKey(db, { kind: "ORG", orgId: org.id, ...fields }, now),
    ).rejects.toMatchObject({ code: "invalid_parameter", message });
  });

  it("refuses keys for an unknown organisation, user or partner", async () => {
    const { db } = await getTestDatabase();
    const base = { label: "l", scopes: ["READ_BANK"] };
    await expect(
      createApiKey(db, { kind: "ORG", orgId: "org_missing", ...base }, now),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      createApiKey(db, { kind: "USER", userId: "usr_missing", ...base }, now),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      createApiKey(db, { kind: "PARTNER", partnerId: "prt_missing", label: "l" }, now),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("creates a USER key (crun_) reaching the user's memberships", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const user = await createUser(db, { email: `u-${org.id}@example.com`, orgId: org.id }, now);
    const k = await createApiKey(
      db,
      { kind: "USER", userId: user.id, label: "mine", scopes: ["READ_FORECAST"] },
      now,
    );
    expect(k.key.startsWith(`crun_${k.prefix}_`)).toBe(true);
    expect(await keyRow(db, k.prefix)).toMatchObject({
      family: "crun",
      kind: "USER",
      reach: "USER_MEMBERSHIPS",
      orgId: null,
      createdByUserId: user.id,
      scopes: ["READ_FORECAST"],
    });
  });

  it("creates PARTNER keys with the fixed partner scopes, live or pinned to linked organisations", async () => {
    const { db } = await getTestDatabase();
    const a = await createTestOrg(db);
    const b = await createTestOrg(db);
    const partner = await createPartner(db, { name: `P ${a.id}` }, now);
    await linkPartner(db, partner.id, a.id, now);
    const live = await createApiKey(
      db,
      { kind: "PARTNER", partnerId: partner.id, label: "all" },
      now,
    );
    expect(live.scopes).toEqual([...PARTNER_SCOPES]);
    expect(await keyRow(db, live.prefix)).toMatchObject({
      family: "crun",
      reach: "ALL_LINKED",
      partnerId: partner.id,
      createdByUserId: partner.ownerUserId,
      pinnedOrgIds: null,
    });
    const pinned = await createApiKey(
      db,
      { kind: "PARTNER", partnerId: partner.id, label: "one", pinnedOrgIds: [a.id, a.id] },
      now,
    );
    expect(await keyRow(db, pinned.prefix)).toMatchObject({
      reach: "PINNED",
      pinnedOrgIds: [a.id],
    });
    await expect(
      createApiKey(
        db,
        { kind: "PARTNER", partnerId: partner.id, label: "bad", pinnedOrgIds: [a.id, b.id] },
        now,
      ),
    ).rejects.toMatchObject({ code: "invalid_parameter", message: new RegExp(b.id) });
    await expect(
      createApiKey(
        db,
        { kind: "PARTNER", partnerId: partner.id, label: "x", pinnedOrgIds: [] },
        now,
      ),
    ).rejects.toMatchObject({ code: "invalid_parameter" });
  });

  it("authenticates a valid key and refuses wrong, revoked, mistyped and re-familied keys", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const k = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: "l", scopes: ["READ_BANK"] },
      now,
    );
    const ok = await authenticateKey(db, k.key);
    expect(ok).toMatchObject({
      prefix: k.prefix,
      kind: "ORG",
      orgId: org.id,
      scopes: ["READ_BANK"],
    });
    expect(JSON.stringify(ok)).not.toContain(k.key.split("_").at(-1));
    const other = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: "o", scopes: ["READ_BANK"] },
      now,
    );
    // Another secret under this key's prefix, with a valid checksum: only the digest can tell.
    const body = generateApiKey("cr_live").secret.slice(0, 32);
    const wrongSecret = `cr_live_${k.prefix}_${body}${keyChecksum("cr_live", k.prefix, body)}`;
    expect(await authenticateKey(db, wrongSecret)).toBeNull();
    // The right secret under the other family (checksum recomputed): refused too.
    const crunBody = k.key.split("_").at(-1)?.slice(0, 32) ?? "";
    const refamilied = `crun_${k.prefix}_${crunBody}${keyChecksum("crun", k.prefix, crunBody)}`;
    expect(await authenticateKey(db, refamilied)).toBeNull();
    await revokeApiKey(db, other.prefix, later);
    expect(await authenticateKey(db, other.key)).toBeNull();
  });

  it("refuses a bad checksum without reading the database", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const k = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: "l", scopes: ["READ_BANK"] },
      now,
    );
    const last = k.key.at(-1) === "0" ? "1" : "0";
    const typo = `${k.key.slice(0, -1)}${last}`;
    const explode = () => {
      throw new Error("the database was read");
    };
    const noDb = new Proxy({}, { get: explode }) as unknown as Db;
    expect(await authenticateKey(noDb, typo)).toBeNull();
    expect(await authenticateKey(noDb, "crun_short")).toBeNull();
    await expect(authenticateKey(noDb, k.key)).rejects.toThrow(/database was read/);
  });

  it("rotates an organisation key: same label and scopes, old revoked at once and linked to the new", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const old = await createApiKey(
      db,
      {
        kind: "ORG",
        orgId: org.id,
        label: "rotate me",
        scopes: ["READ_BANK", "READ_INVOICES"],
        sensitive: true,
      },
      now,
    );
    const rotated = await rotateApiKey(db, old.prefix, later);
    expect(rotated).toMatchObject({
      kind: "ORG",
      label: "rotate me",
      scopes: ["READ_BANK", "READ_INVOICES", "READ_SENSITIVE"],
      orgId: org.id,
      replacedPrefix: old.prefix,
    });
    expect(rotated.prefix).not.toBe(old.prefix);
    expect(await keyRow(db, old.prefix)).toMatchObject({
      revokedAt: later,
      replacedByKeyId: rotated.id,
    });
    expect(await keyRow(db, rotated.prefix)).toMatchObject({
      revokedAt: null,
      createdAt: later,
      createdByUserId: org.ownerUserId,
    });
    expect(await authenticateKey(db, old.key)).toBeNull();
    expect(await authenticateKey(db, rotated.key)).toMatchObject({ id: rotated.id });
    await expect(rotateApiKey(db, old.prefix, later)).rejects.toMatchObject({
      code: "invalid_parameter",
      message: /already revoked/,
    });
  });

  it("refuses to rotate crun_ keys, explaining create-then-revoke", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const k = await createApiKey(
      db,
      { kind: "USER", userId: org.ownerUserId, label: "u", scopes: ["READ_BANK"] },
      now,
    );
    await expect(rotateApiKey(db, k.prefix, later)).rejects.toMatchObject({
      code: "invalid_parameter",
      message: /no rotate operation.*revoke the old key/s,
    });
    expect(await authenticateKey(db, k.key)).not.toBeNull();
    await expect(rotateApiKey(db, "zzzzzzzzzz", later)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("revokes irreversibly and refuses a second revocation", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const k = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: "r", scopes: ["READ_BANK"] },
      now,
    );
    const revoked = await revokeApiKey(db, k.prefix, later);
    expect(revoked).toMatchObject({
      prefix: k.prefix,
      status: "revoked",
      revokedAt: later.toISOString(),
    });
    await expect(revokeApiKey(db, k.prefix, new Date(later.getTime() + 1))).rejects.toMatchObject({
      code: "invalid_parameter",
      message: /already revoked/,
    });
    expect((await keyRow(db, k.prefix)).revokedAt).toEqual(later);
    await expect(revokeApiKey(db, "zzzzzzzzzz", later)).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("lists an organisation's keys, active and revoked, without secrets or digests", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const a = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: "a", scopes: ["READ_BANK"] },
      now,
    );
    const b = await createApiKey(
      db,
      { kind: "ORG", orgId: org.id, label: "b", scopes: ["READ_BANK"] },
      later,
    );
    await revokeApiKey(db, a.prefix, later);
    const listed = await listApiKeys(db, { orgId: org.id });
    expect(listed.map((k) => [k.prefix, k.status])).toEqual([
      [a.prefix, "revoked"],
      [b.prefix, "active"],
    ]);
    const text = JSON.stringify(listed);
    const digests = await db
      .select({ d: apiKeys.secretDigest })
      .from(apiKeys)
      .where(eq(apiKeys.orgId, org.id));
    for (const { d } of digests) expect(text).not.toContain(d);
    for (const k of [a, b]) expect(text).not.toContain(k.key.split("_").at(-1));
    expect(listed[0]).not.toHaveProperty("secretDigest");
    const all = await listApiKeys(db);
    expect(all.map((k) => k.prefix)).toEqual(expect.arrayContaining([a.prefix, b.prefix]));
  });

  it("never stores a secret in any text column of api_keys", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    const keys = [
      await createApiKey(
        db,
        { kind: "ORG", orgId: org.id, label: "o", scopes: ["READ_BANK"] },
        now,
      ),
      await createApiKey(
        db,
        { kind: "USER", userId: org.ownerUserId, label: "u", scopes: ["READ_BANK"] },
        now,
      ),
    ];
    keys.push(await rotateApiKey(db, keys[0]!.prefix, later));
    const cols = rowsOf<{ column_name: string }>(
      await db.execute(sql`
      select column_name from information_schema.columns
       where table_name = 'api_keys' and data_type in ('text', 'ARRAY', 'character varying')`),
    );
    expect(cols.length).toBeGreaterThan(5);
    for (const k of keys) {
      const secret = k.key.split("_").at(-1) ?? "";
      for (const { column_name } of cols) {
        const hits = rowsOf<{ n: number }>(
          await db.execute(
            sql`select count(*)::int as n from api_keys where ${sql.identifier(column_name)}::text like ${`%${secret.slice(0, 32)}%`}`,
          ),
        );
        expect(hits[0]?.n, `api_keys.${column_name} holds a secret`).toBe(0);
      }
    }
  });
});
