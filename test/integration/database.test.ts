import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  apiKeys,
  auditEvents,
  billingAccounts,
  memberships,
  seats,
} from "../../src/db/schema/index.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase, testDriver } from "../helpers/test-db.ts";

describe(`database (${testDriver})`, () => {
  it("creates an organisation with its owner, a trial billing account and the owner's seat", async () => {
    const { db } = await getTestDatabase();
    const now = new Date("2026-03-01T00:00:00Z");
    const org = await createTestOrg(db, { now });
    const [billing] = await db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, org.billingAccountId));
    expect(billing?.plan).toBe("Wallet");
    expect(billing?.subscriptionStatus).toBe("trialing");
    expect(billing?.trialEndsAt?.toISOString()).toBe("2026-03-15T00:00:00.000Z");
    const members = await db.select().from(memberships).where(eq(memberships.orgId, org.id));
    expect(members).toEqual([expect.objectContaining({ userId: org.ownerUserId, role: "owner" })]);
    const seat = await db
      .select()
      .from(seats)
      .where(eq(seats.billingAccountId, org.billingAccountId));
    expect(seat).toHaveLength(1);
  });

  it("indexes audit rows by key only: the settings screen's trail, no index nobody reads", async () => {
    const { db } = await getTestDatabase();
    const result = await db.execute(
      sql`select indexname, indexdef from pg_indexes where tablename = 'audit_events' order by indexname`,
    );
    const rows = (result as unknown as { rows: { indexname: string; indexdef: string }[] }).rows;
    expect(rows.map((r) => r.indexname)).toEqual(["audit_events_key_at_idx", "audit_events_pkey"]);
    expect(rows[0]?.indexdef).toMatch(/\(key_id, at\)/);
  });

  it("refuses to update, delete or truncate audit rows", async () => {
    const { db } = await getTestDatabase();
    const org = await createTestOrg(db);
    await db.insert(apiKeys).values({
      id: `key_audit_${org.id}`,
      family: "cr_live",
      kind: "ORG",
      prefix: `p${org.id.slice(4)}`,
      secretDigest: "0".repeat(64),
      label: "audit test",
      scopes: ["READ_BANK"],
      reach: "OWN_ORG",
      orgId: org.id,
      createdByUserId: org.ownerUserId,
    });
    await db.insert(auditEvents).values({
      keyId: `key_audit_${org.id}`,
      orgId: org.id,
      method: "GET",
      route: "/api/agent/bank-accounts",
      status: 200,
      sensitive: false,
      requestId: "r1",
      at: new Date(),
    });
    const refused = (e: unknown) => /append-only/.test(String((e as Error).cause ?? e));
    await expect(
      db.update(auditEvents).set({ status: 500 }).where(eq(auditEvents.orgId, org.id)),
    ).rejects.toSatisfy(refused);
    await expect(db.delete(auditEvents).where(eq(auditEvents.orgId, org.id))).rejects.toSatisfy(
      refused,
    );
    await expect(db.execute(sql`truncate audit_events`)).rejects.toSatisfy(refused);
    const rows = await db.select().from(auditEvents).where(eq(auditEvents.orgId, org.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe(200);
  });
});
