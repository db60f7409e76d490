import { rm } from "node:fs/promises";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningFakeLedger, startFakeLedger } from "../../src/connector/xero/fake/server.ts";
import { LedgerReconnectRequiredError, resetTenantGates } from "../../src/connector/xero/policy.ts";
import type { Db } from "../../src/db/client.ts";
import { ledgerAuthorizations, ledgerCredentials } from "../../src/db/schema/index.ts";
import {
  chooseTenant,
  completeAuthorization,
  disconnectLedger,
  LedgerConnectError,
  ledgerConnectionView,
  startAuthorization,
} from "../../src/services/ledger/connect.ts";
import { TokenSealer } from "../../src/services/ledger/seal.ts";
import { ConnectionTokens } from "../../src/services/ledger/tokens.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { getTestDatabase } from "../helpers/test-db.ts";
import { connectThroughFake, demoFolder, depsFor } from "./ledger-helpers.ts";

let db: Db;
let fake: RunningFakeLedger;
let folder: string;

beforeAll(async () => {
  db = (await getTestDatabase()).db;
  folder = await demoFolder(20, "connect");
}, 60_000);

beforeEach(async () => {
  await fake?.close();
  resetTenantGates();
  fake = await startFakeLedger();
  await fake.store.loadTenantFromFolder(folder, { tenantName: "Acme Books" });
});

afterAll(async () => {
  await fake?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("connecting a ledger", () => {
  it("links the only tenant, with tokens sealed at rest", async () => {
    const org = await createTestOrg(db);
    const deps = depsFor(db, fake);
    const outcome = await connectThroughFake(deps, org.id);
    expect(outcome).toMatchObject({ status: "linked", tenantName: "Acme Books" });
    const view = await ledgerConnectionView(deps, org.id);
    expect(view).toMatchObject({ state: "healthy", provider: "xero", tenantName: "Acme Books" });
    // Nothing in the database holds a token in clear.
    const [row] = await db
      .select()
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.orgId, org.id));
    if (!row) throw new Error("no credentials");
    const tokens = new ConnectionTokens(deps, org.id, row.connectionId);
    const access = await tokens.accessToken();
    const dump = JSON.stringify(
      await db.execute(sql`SELECT * FROM ledger_credentials WHERE org_id = ${org.id}`),
    );
    expect(dump).not.toContain(access);
    expect(row.accessTokenSealed.startsWith("v1.")).toBe(true);
    // A sealed token opens only on its own row, under the right key.
    expect(() => deps.sealer.open(row.accessTokenSealed, "another-connection")).toThrow();
    expect(() =>
      new TokenSealer("x".repeat(40)).open(row.accessTokenSealed, row.connectionId),
    ).toThrow();
  });

  it("lets the user pick when the grant reaches several tenants", async () => {
    fake.store.addTenant({ tenantName: "Second Co" });
    const org = await createTestOrg(db);
    const deps = depsFor(db, fake);
    const outcome = await connectThroughFake(deps, org.id, "session-a");
    if (outcome.status !== "choose_tenant") throw new Error("expected a choice");
    expect(outcome.tenants.map((t) => t.tenantName).sort()).toEqual(["Acme Books", "Second Co"]);
    const [auth] = await db
      .select({ d: ledgerAuthorizations.stateDigest })
      .from(ledgerAuthorizations)
      .where(eq(ledgerAuthorizations.orgId, org.id));
    const second = outcome.tenants.find((t) => t.tenantName === "Second Co");
    if (!auth || !second) throw new Error("missing");
    await expect(
      chooseTenant(deps, {
        stateDigest: auth.d,
        sessionDigest: "session-b",
        orgId: org.id,
        tenantId: second.tenantId,
      }),
    ).rejects.toBeInstanceOf(LedgerConnectError);
    const linked = await chooseTenant(deps, {
      stateDigest: auth.d,
      sessionDigest: "session-a",
      orgId: org.id,
      tenantId: second.tenantId,
    });
    expect(linked.tenantName).toBe("Second Co");
  });

  it("refuses the same tenant on a second organisation", async () => {
    const first = await createTestOrg(db);
    const second = await createTestOrg(db);
    const deps = depsFor(db, fake);
    await connectThroughFake(deps, first.id);
    await expect(connectThroughFake(deps, second.id)).rejects.toMatchObject({
      code: "tenant_taken",
    });
    expect((await ledgerConnectionView(deps, second.id)).state).toBe("none");
  });

  it("state is single-use and bound to the session that started it", async () => {
    const org = await createTestOrg(db);
    const deps = depsFor(db, fake);
    const { authorizationUrl } = await startAuthorization(deps, {
      orgId: org.id,
      userId: null,
      sessionDigest: "session-a",
    });
    const state = new URL(authorizationUrl).searchParams.get("state") ?? "";
    expect(new URL(authorizationUrl).searchParams.get("code_challenge_method")).toBe("S256");
    await expect(
      completeAuthorization(deps, { state, code: "x", sessionDigest: "session-b" }),
    ).rejects.toMatchObject({ code: "invalid_state" });
    await expect(
      completeAuthorization(deps, { state: "forged", code: "x", sessionDigest: "session-a" }),
    ).rejects.toMatchObject({ code: "invalid_state" });
  });
});

describe("tokens", () => {
  it("two instances racing to refresh one token: one refresh call, both keep working", async () => {
    const org = await createTestOrg(db);
    const deps = depsFor(db, fake);
    await connectThroughFake(deps, org.id);
    const [row] = await db
      .select()
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.orgId, org.id));
    if (!row) throw new Error("no credentials");
    // Both instances see an expired token.
    await db
      .update(ledgerCredentials)
      .set({ accessExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(ledgerCredentials.connectionId, row.connectionId));
    const before = fake.identity.refreshCalls;
    const a = new ConnectionTokens(deps, org.id, row.connectionId);
    const b = new ConnectionTokens(depsFor(db, fake), org.id, row.connectionId);
    const [ta, tb] = await Promise.all([a.accessToken(), b.accessToken()]);
    expect(fake.identity.refreshCalls - before).toBe(1);
    expect(ta).toBe(tb);
    expect(fake.identity.grantOf(ta)).toBeDefined();
  });

  it("invalid_grant moves the connection to reconnect_required; reconnect repairs it", async () => {
    const org = await createTestOrg(db);
    const deps = depsFor(db, fake);
    await connectThroughFake(deps, org.id);
    const [row] = await db
      .select()
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.orgId, org.id));
    if (!row) throw new Error("no credentials");
    fake.identity.revokeAll();
    await db
      .update(ledgerCredentials)
      .set({ accessExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(ledgerCredentials.connectionId, row.connectionId));
    const tokens = new ConnectionTokens(deps, org.id, row.connectionId);
    await expect(tokens.accessToken()).rejects.toBeInstanceOf(LedgerReconnectRequiredError);
    expect((await ledgerConnectionView(deps, org.id)).state).toBe("reconnect_required");
    const again = await connectThroughFake(deps, org.id);
    expect(again.status).toBe("linked");
    expect((await ledgerConnectionView(deps, org.id)).state).toBe("healthy");
    expect(await new ConnectionTokens(deps, org.id, row.connectionId).accessToken()).toBeTruthy();
  });

  it("disconnect revokes at the ledger and keeps the connection row as none", async () => {
    const org = await createTestOrg(db);
    const deps = depsFor(db, fake);
    await connectThroughFake(deps, org.id);
    const result = await disconnectLedger(deps, { orgId: org.id });
    expect(result.revoked).toBe(true);
    expect(fake.stats.revocations).toBe(1);
    expect(
      [...fake.identity.grants.values()].every((g) => g.revoked || g.connections.size === 0),
    ).toBe(true);
    expect((await ledgerConnectionView(deps, org.id)).state).toBe("none");
    const left = await db
      .select()
      .from(ledgerCredentials)
      .where(eq(ledgerCredentials.orgId, org.id));
    expect(left).toEqual([]);
  });
});
