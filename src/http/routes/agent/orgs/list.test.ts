import { describe, expect, it } from "vitest";
import { createTestKey, getJson, TEST_NOW, testApp } from "../../../../../test/helpers/api.ts";
import { createTestOrg } from "../../../../../test/helpers/factories.ts";
import { testDriver } from "../../../../../test/helpers/test-db.ts";
import { type OrgsResponse, OrgsResponseSchema } from "../../../../contracts/agent/orgs.ts";
import { createPartner, linkPartner } from "../../../../services/partners/partners.ts";
import { createUser } from "../../../../services/users/create-user.ts";

describe(`GET /api/agent/orgs (${testDriver})`, () => {
  it("gives an organisation key its own organisation with keyKind USER", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, {
      name: "Harbour Coffee",
      baseCurrency: "NZD",
      timezone: "Pacific/Auckland",
      imported: true,
    });
    await createTestOrg(t.db);
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "l",
      scopes: ["READ_BANK"],
    });
    const r = await getJson<OrgsResponse>(t.app, "/api/agent/orgs", k.key);
    expect(r.status, r.text).toBe(200);
    expect(OrgsResponseSchema.parse(r.body)).toEqual(r.body);
    expect(r.body).toEqual({
      keyKind: "USER",
      orgs: [
        { id: org.id, name: "Harbour Coffee", baseCurrency: "NZD", timezone: "Pacific/Auckland" },
      ],
    });
  });

  it("lists a USER key's organisations sorted by name, then id", async () => {
    const t = await testApp();
    const tag = Math.random().toString(36).slice(2, 8);
    const b = await createTestOrg(t.db, { name: `Beta ${tag}` });
    const a1 = await createTestOrg(t.db, { name: `Alpha ${tag}` });
    const a2 = await createTestOrg(t.db, { name: `Alpha ${tag}` });
    await createTestOrg(t.db, { name: `Aardvark ${tag}` }); // not a member
    const email = `lister-${tag}@example.com`;
    const user = await createUser(t.db, { email, orgId: b.id }, TEST_NOW);
    await createUser(t.db, { email, orgId: a1.id }, TEST_NOW);
    await createUser(t.db, { email, orgId: a2.id }, TEST_NOW);
    const k = await createTestKey(t.db, {
      kind: "USER",
      userId: user.id,
      label: "u",
      scopes: ["READ_BANK"],
    });
    const r = await getJson<OrgsResponse>(t.app, "/api/agent/orgs", k.key);
    expect(r.body.keyKind).toBe("USER");
    expect(r.body.orgs.map((o) => o.id)).toEqual([...[a1.id, a2.id].sort(), b.id]);
  });

  it("lists a partner key's linked clients with keyKind PARTNER", async () => {
    const t = await testApp();
    const tag = Math.random().toString(36).slice(2, 8);
    const z = await createTestOrg(t.db, { name: `Zed ${tag}` });
    const y = await createTestOrg(t.db, { name: `Yak ${tag}` });
    const partner = await createPartner(t.db, { name: `Practice ${tag}` }, TEST_NOW);
    await linkPartner(t.db, partner.id, z.id, TEST_NOW);
    await linkPartner(t.db, partner.id, y.id, TEST_NOW);
    const k = await createTestKey(t.db, { kind: "PARTNER", partnerId: partner.id, label: "p" });
    const r = await getJson<OrgsResponse>(t.app, "/api/agent/orgs", k.key);
    expect(r.body).toMatchObject({ keyKind: "PARTNER", orgs: [{ id: y.id }, { id: z.id }] });
  });

  it("has no nested form", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db);
    const k = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "l",
      scopes: ["READ_BANK"],
    });
    const r = await getJson(t.app, `/api/agent/orgs/${org.id}/orgs`, k.key);
    expect(r.status).toBe(404);
  });
});
