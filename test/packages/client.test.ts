import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ApiError, CashRunwayClient, ConnectionError } from "@cashrunway/client";
import { afterEach, describe, expect, it } from "vitest";
import { createTestKey, TEST_NOW, testApp } from "../helpers/api.ts";
import { createTestOrg } from "../helpers/factories.ts";
import { testDriver } from "../helpers/test-db.ts";
import { bulkInsertItems } from "../integration/documents-helpers.ts";

/** A client that reaches the test app in-process (its `fetch` is the app's). */
function clientOf(app: { fetch: (r: Request) => Response | Promise<Response> }, token: string) {
  return new CashRunwayClient({
    token,
    baseUrl: "http://runway.test",
    fetch: async (request) => app.fetch(request),
  });
}

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A plain HTTP server on a free port answering `answers` in turn (then the last again). */
async function scriptedServer(
  answers: { status: number; headers?: Record<string, string>; body: unknown }[],
) {
  const seen: { url: string; at: number; authorization: string | undefined }[] = [];
  const server = createServer((req, res) => {
    seen.push({
      url: req.url ?? "",
      at: performance.now(),
      authorization: req.headers.authorization,
    });
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)] as (typeof answers)[0];
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen };
}

describe(`@cashrunway/client (${testDriver})`, () => {
  it("walks a 5,001-invoice list through its cursor pages, each invoice exactly once", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { now: TEST_NOW });
    await bulkInsertItems(t.db, org.id, 5_001, { prefix: `it-${org.id}`, status: "AUTHORISED" });
    const key = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "iter",
      scopes: ["READ_INVOICES"],
    });
    const client = clientOf(t.app, key.key);
    const seen = new Map<string, number>();
    let pages = 0;
    for await (const page of client.pages("/api/agent/invoices", { query: { limit: 200 } })) {
      pages += 1;
      for (const invoice of page.invoices) seen.set(invoice.id, (seen.get(invoice.id) ?? 0) + 1);
    }
    expect(pages).toBe(Math.ceil(5_001 / 200));
    expect(seen.size).toBe(5_001);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);

    // items() yields the rows themselves (here the one DRAFT invoice, on one page).
    const drafts = [];
    for await (const invoice of client.items("/api/agent/invoices", {
      query: { status: "DRAFT" },
    })) {
      drafts.push(invoice);
    }
    expect(drafts.map((i) => [i.ledgerStatus, seen.get(i.id)])).toEqual([["DRAFT", 1]]);
  }, 180_000);

  it("retries a 429 after Retry-After, and gives up past maxRetries or maxWaitSeconds", async () => {
    const limited = {
      status: 429,
      headers: { "retry-after": "1", "x-request-id": "req_limited" },
      body: { error: "rate_limited", message: "burst cap", retryAfterSeconds: 1 },
    };
    const ok = { status: 200, body: { keyKind: "USER", orgs: [] } };
    const s = await scriptedServer([limited, ok]);
    const client = new CashRunwayClient({ token: "cr_live_x", baseUrl: s.url });
    const started = performance.now();
    const body = await client.get("/api/agent/orgs");
    expect(body).toEqual(ok.body);
    expect(s.seen).toHaveLength(2);
    const waited = (s.seen[1]?.at ?? 0) - (s.seen[0]?.at ?? 0);
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(s.seen[0]?.authorization).toBe("Bearer cr_live_x");

    // Opted out: the 429 is thrown at once, typed.
    const s2 = await scriptedServer([limited, ok]);
    const noRetry = new CashRunwayClient({ token: "cr_live_x", baseUrl: s2.url, retry: false });
    const err = await noRetry.get("/api/agent/orgs").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 429,
      code: "rate_limited",
      requestId: "req_limited",
      retryAfterSeconds: 1,
    });
    expect(s2.seen).toHaveLength(1);

    // A wait longer than maxWaitSeconds (spent credits) is not waited for.
    const long = {
      ...limited,
      headers: { "retry-after": "3600" },
      body: { error: "credits_exhausted", retryAfterSeconds: 3600 },
    };
    const s3 = await scriptedServer([long, ok]);
    const t0 = performance.now();
    const err3 = await new CashRunwayClient({ token: "cr_live_x", baseUrl: s3.url })
      .get("/api/agent/orgs")
      .catch((e: unknown) => e);
    expect(err3).toMatchObject({ code: "credits_exhausted", retryAfterSeconds: 3600 });
    expect(performance.now() - t0).toBeLessThan(900);
    expect(s3.seen).toHaveLength(1);

    // At most maxRetries retries.
    const s4 = await scriptedServer([{ ...limited, headers: { "retry-after": "0" } }]);
    const err4 = await new CashRunwayClient({
      token: "cr_live_x",
      baseUrl: s4.url,
      retry: { maxRetries: 3 },
    })
      .get("/api/agent/orgs")
      .catch((e: unknown) => e);
    expect(err4).toMatchObject({ status: 429 });
    expect(s4.seen).toHaveLength(4);
  }, 180_000);

  it("throws typed errors with the API's code and request id", async () => {
    const t = await testApp();
    const org = await createTestOrg(t.db, { now: TEST_NOW });
    const key = await createTestKey(t.db, {
      kind: "ORG",
      orgId: org.id,
      label: "bank only",
      scopes: ["READ_BANK"],
    });
    const client = clientOf(t.app, key.key);
    const err = await client.get("/api/agent/invoices").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const apiError = err as ApiError;
    expect(apiError).toMatchObject({
      status: 403,
      code: "insufficient_scope",
      requiredScope: "READ_INVOICES",
    });
    expect(apiError.requestId).toMatch(/\S/);

    const bad = await client
      .get("/api/agent/bank-accounts")
      .then(() =>
        clientOf(t.app, `${key.key.slice(0, -1)}${key.key.endsWith("x") ? "y" : "x"}`).get(
          "/api/agent/bank-accounts",
        ),
      )
      .catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 401, code: "unauthorized" });

    const invalid = await clientOf(t.app, key.key)
      .forOrg(org.id)
      .get("/api/agent/contacts/{id}", { path: { id: "x" } })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 403, code: "insufficient_scope" });

    const down = await new CashRunwayClient({ token: key.key, baseUrl: "http://127.0.0.1:1" })
      .get("/api/agent/status")
      .catch((e: unknown) => e);
    expect(down).toBeInstanceOf(ConnectionError);
  }, 180_000);

  it("selects the organisation of a multi-organisation key with orgId, and cannot leave its reach", async () => {
    const t = await testApp();
    const first = await createTestOrg(t.db, { name: "First Co", now: TEST_NOW });
    const email = `multi-${first.id}@example.test`;
    await createTestOrg(t.db, { name: "Owner's own", now: TEST_NOW });
    const a = await createTestOrg(t.db, { name: "Alpha", now: TEST_NOW });
    const b = await createTestOrg(t.db, { name: "Beta", now: TEST_NOW });
    // One user owning two organisations (created with the same owner email).
    const { createOrganisation } = await import("../../src/services/orgs/create-organisation.ts");
    const mine1 = await createOrganisation(t.db, { name: "Mine One", ownerEmail: email }, TEST_NOW);
    const mine2 = await createOrganisation(t.db, { name: "Mine Two", ownerEmail: email }, TEST_NOW);
    expect(mine2.ownerUserId).toBe(mine1.ownerUserId);
    const key = await createTestKey(t.db, {
      kind: "USER",
      userId: mine1.ownerUserId,
      label: "multi",
      scopes: ["READ_BANK"],
    });
    const client = clientOf(t.app, key.key);
    const orgs = await client.get("/api/agent/orgs");
    expect(orgs.orgs.map((o) => o.id).sort()).toEqual([mine1.id, mine2.id].sort());

    await expect(client.get("/api/agent/bank-accounts")).rejects.toMatchObject({
      status: 400,
      code: "org_required",
    });
    const own = await client.forOrg(mine2.id).get("/api/agent/bank-accounts");
    expect(own).toMatchObject({ accounts: [], redactedItemCount: 0 });
    const perCall = await client.get("/api/agent/bank-accounts", { orgId: mine1.id });
    expect(perCall).toMatchObject({ accounts: [] });
    for (const outside of [a.id, b.id, "org_doesnotexist"]) {
      await expect(client.forOrg(outside).get("/api/agent/bank-accounts")).rejects.toMatchObject({
        status: 403,
        code: "forbidden",
      });
    }
    // The daily brief is nested only: the client's orgId fills the path.
    await expect(
      client.forOrg(mine1.id).get("/api/agent/orgs/{orgId}/daily-brief"),
    ).rejects.toMatchObject({
      status: 404,
      code: "no_brief_yet",
    });
  }, 180_000);
});
