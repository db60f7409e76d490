import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys, billingAccounts, contacts, memberships } from "../../src/db/schema/index.ts";
import { createApi } from "../../src/http/api.ts";
import { createApiKey } from "../../src/services/keys/create-api-key.ts";
import { createPartner, linkPartner } from "../../src/services/partners/partners.ts";
import { setUserPassword } from "../../src/services/web-auth/set-password.ts";
import { registerWeb } from "../../src/web/index.tsx";
import { get, TEST_NOW, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { WebClient } from "./web-client.ts";
import { FIXTURE_PASSWORD, fixtureUser, webOrg } from "./web-fixtures.ts";

const now = TEST_NOW;

/** An organisation with an owner, an admin and a member, an organisation key, and a client per person. */
async function scene() {
  const t = await testApp();
  const a = await webOrg(t.db, now, `Alpha ${Math.random().toString(36).slice(2, 6)}`);
  const admin = await fixtureUser(t.db, now, { orgId: a.org.id, role: "admin", label: "admin" });
  const member = await fixtureUser(t.db, now, { orgId: a.org.id, role: "member", label: "member" });
  const key = await createApiKey(
    t.db,
    { kind: "ORG", orgId: a.org.id, label: "Alpha agent", scopes: ["READ_BANK"] },
    now,
  );
  const b = await webOrg(t.db, now, `Beta ${Math.random().toString(36).slice(2, 6)}`);
  const signedIn = async (email: string) => {
    const client = new WebClient(t.app);
    const res = await client.signIn(email, FIXTURE_PASSWORD);
    expect(res.status, client.lastHtml.slice(0, 500)).toBe(303);
    return client;
  };
  return { t, a, b, admin, member, key, signedIn };
}

async function isActive(db: Awaited<ReturnType<typeof testApp>>["db"], prefix: string) {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.prefix, prefix));
  return row !== undefined && row.revokedAt === null;
}

describe(`settings screen over HTTP (${testDriver})`, () => {
  it("signs in with an HttpOnly, SameSite=Lax session cookie, Secure only over TLS", async () => {
    const { t, a } = await scene();
    const plain = new WebClient(t.app);
    const res = await plain.signIn(a.owner.email, FIXTURE_PASSWORD);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("cr_session="));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(cookie).not.toMatch(/Max-Age/);

    const tls = new WebClient(t.app);
    await tls.get("/settings/login", { "x-forwarded-proto": "https" });
    const secure = await tls.post(
      "/settings/login",
      { _csrf: tls.csrf(), email: a.owner.email, password: FIXTURE_PASSWORD },
      { "x-forwarded-proto": "https" },
    );
    expect(secure.headers.getSetCookie().find((c) => c.startsWith("cr_session="))).toMatch(
      /Secure/,
    );
  });

  it("sends signed-out visitors to the sign-in page and back, never to another site", async () => {
    const { t, a } = await scene();
    const res = await get(t.app, "/settings/keys");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/settings/login?next=%2Fsettings%2Fkeys");
    const client = new WebClient(t.app);
    const back = await client.signIn(a.owner.email, FIXTURE_PASSWORD, "/settings/keys");
    expect(back.headers.get("location")).toBe("/settings/keys");
    for (const next of ["//evil.example/x", "https://evil.example", "/\\evil.example"]) {
      const r = await new WebClient(t.app).signIn(a.owner.email, FIXTURE_PASSWORD, next);
      expect(r.headers.get("location")).toBe("/");
    }
  });

  it("refuses a wrong password with a generic message, and locks out guessing", async () => {
    const { t, a } = await scene();
    const client = new WebClient(t.app);
    for (let i = 0; i < 5; i++) {
      const r = await client.signIn(a.owner.email, `wrong guess ${i}!`);
      expect(r.status).toBe(401);
      expect(client.lastHtml).toContain("Email or password is incorrect.");
    }
    const locked = await client.signIn(a.owner.email, FIXTURE_PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("900");
    expect(client.lastHtml).toContain("Too many failed sign-in attempts");
    expect(client.cookies.has("cr_session")).toBe(false);
  });

  it("refuses the sign-in form without its CSRF token", async () => {
    const { t, a } = await scene();
    const client = new WebClient(t.app);
    await client.get("/settings/login");
    const res = await client.post("/settings/login", {
      email: a.owner.email,
      password: FIXTURE_PASSWORD,
    });
    expect(res.status).toBe(403);
    expect(client.cookies.has("cr_session")).toBe(false);
  });

  it("refuses a signed-in form without its CSRF token, with a wrong one, or from another origin", async () => {
    const { t, a, signedIn } = await scene();
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/keys");
    const token = owner.csrf();
    const fields = { kind: "ORG", label: "Should not exist", scopes: "READ_BANK" };
    expect((await owner.post("/settings/keys", fields)).status).toBe(403);
    expect(owner.lastHtml).toContain("could not be verified");
    expect(
      (await owner.post("/settings/keys", { ...fields, _csrf: `${token.slice(1)}x` })).status,
    ).toBe(403);
    expect(
      (
        await owner.post(
          "/settings/keys",
          { ...fields, _csrf: token },
          { origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await owner.post(
          "/settings/keys",
          { ...fields, _csrf: token },
          { "sec-fetch-site": "cross-site" },
        )
      ).status,
    ).toBe(403);
    const made = await t.db.select().from(apiKeys).where(eq(apiKeys.label, "Should not exist"));
    expect(made).toHaveLength(0);
  });

  it("sets security headers on pages and leaves the agent API alone", async () => {
    const { t, a, signedIn } = await scene();
    const owner = await signedIn(a.owner.email);
    const page = await owner.get("/settings/keys");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    const api = await get(t.app, "/api/agent/bank-accounts");
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({ error: "unauthorized" });
    expect(api.headers.get("content-security-policy")).toBeNull();
    const css = await owner.get("/settings/assets/app.css");
    expect(css.headers.get("content-type")).toContain("text/css");
  });

  it("hides another organisation's keys: GET and POST answer 404 and change nothing", async () => {
    const { t, b, key, signedIn } = await scene();
    const outsider = await signedIn(b.owner.email);
    const page = await outsider.get("/settings/keys");
    expect(page.status).toBe(200);
    expect(outsider.lastHtml).not.toContain(key.prefix);
    const token = outsider.csrf();
    for (const path of ["audit", "rotate", "revoke"]) {
      expect((await outsider.get(`/settings/keys/${key.prefix}/${path}`)).status).toBe(404);
    }
    for (const path of ["rotate", "revoke"]) {
      expect(
        (await outsider.post(`/settings/keys/${key.prefix}/${path}`, { _csrf: token })).status,
      ).toBe(404);
    }
    expect(await isActive(t.db, key.prefix)).toBe(true);
  });

  it("refuses another organisation's sensitive flags and a switch into it", async () => {
    const { t, a, b, signedIn } = await scene();
    const outsider = await signedIn(b.owner.email);
    await outsider.get("/settings/sensitive");
    expect(outsider.lastHtml).not.toContain(a.ledger.secret.id);
    const token = outsider.csrf();
    const r = await outsider.post("/settings/sensitive", {
      ...outsider.orgForm(),
      kind: "contact",
      id: a.ledger.secret.id,
      sensitive: "on",
    });
    expect(r.status).toBe(404);
    const [row] = await t.db.select().from(contacts).where(eq(contacts.id, a.ledger.secret.id));
    expect(row?.isSensitive).toBe(false);
    expect((await outsider.post("/settings/org", { _csrf: token, orgId: a.org.id })).status).toBe(
      403,
    );
  });

  it("lets a member view keys and make personal keys, but not manage organisation keys, flags or billing", async () => {
    const { t, a, member, key, signedIn } = await scene();
    const m = await signedIn(member.email);
    await m.get("/settings/keys");
    expect(m.lastHtml).toContain(key.prefix);
    expect(m.lastHtml).not.toContain(`/settings/keys/${key.prefix}/revoke`);
    const token = m.csrf();
    const orgForm = m.orgForm();
    expect((await m.get(`/settings/keys/${key.prefix}/audit`)).status).toBe(200);
    expect((await m.get(`/settings/keys/${key.prefix}/revoke`)).status).toBe(403);
    expect((await m.post(`/settings/keys/${key.prefix}/revoke`, { _csrf: token })).status).toBe(
      403,
    );
    expect(await isActive(t.db, key.prefix)).toBe(true);
    expect(
      (
        await m.post("/settings/keys", {
          ...orgForm,
          kind: "ORG",
          label: "member org key",
          scopes: "READ_BANK",
        })
      ).status,
    ).toBe(403);
    const own = await m.post("/settings/keys", {
      ...orgForm,
      kind: "USER",
      label: "my laptop",
      scopes: "READ_BANK",
    });
    expect(own.status).toBe(200);
    expect(m.lastHtml).toMatch(/crun_[0-9a-z]{10}_[0-9a-z]{38}/);
    const flag = await m.post("/settings/sensitive", {
      ...orgForm,
      kind: "account",
      id: a.ledger.wages.accountId,
      sensitive: "on",
    });
    expect(flag.status).toBe(403);
    expect((await m.get("/settings/billing")).status).toBe(403);
  });

  it("lets an admin manage keys and flags but not billing; the owner has billing", async () => {
    const { t, a, admin, key, signedIn } = await scene();
    const ad = await signedIn(admin.email);
    await ad.get("/settings/keys");
    const adForm = ad.orgForm();
    expect((await ad.post(`/settings/keys/${key.prefix}/revoke`, adForm)).status).toBe(303);
    expect(await isActive(t.db, key.prefix)).toBe(false);
    expect((await ad.get("/settings/billing")).status).toBe(403);
    expect(
      (await ad.post("/settings/billing/auto-top-up", { ...adForm, autoTopUp: "on" })).status,
    ).toBe(403);

    const owner = await signedIn(a.owner.email);
    expect((await owner.get("/settings/billing")).status).toBe(200);
    expect(owner.lastHtml).toContain("Wallet");
    expect(owner.lastHtml).toContain("trialing");
    expect(owner.lastHtml).toContain("14 days left");
    expect(owner.lastHtml).toContain("No payment processor is connected");
    const r = await owner.post("/settings/billing/auto-top-up", {
      ...owner.orgForm(),
      autoTopUp: "on",
    });
    expect(r.status).toBe(303);
    const [acct] = await t.db
      .select()
      .from(billingAccounts)
      .where(eq(billingAccounts.id, a.org.billingAccountId));
    expect(acct?.autoTopUp).toBe(true);
  });

  it("never adds READ_SENSITIVE except through the separate box, and rotation keeps the scopes", async () => {
    const { t, a, signedIn } = await scene();
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/keys");
    const form = owner.orgForm();
    const smuggled = await owner.post("/settings/keys", {
      ...form,
      kind: "ORG",
      label: "smuggled",
      scopes: ["READ_BANK", "READ_SENSITIVE"],
    });
    expect(smuggled.status).toBe(400);
    expect(owner.lastHtml).toContain("READ_SENSITIVE is granted only through the sensitive option");
    const plain = await owner.post("/settings/keys", {
      ...form,
      kind: "ORG",
      label: "plain",
      scopes: "READ_BANK",
    });
    expect(plain.status).toBe(200);
    const prefix = /cr_live_([0-9a-z]{10})_/.exec(owner.lastHtml)?.[1] ?? "";
    await owner.post(`/settings/keys/${prefix}/rotate`, form);
    const rotated = await t.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, a.org.id), eq(apiKeys.label, "plain")));
    expect(rotated.map((k) => k.scopes)).toEqual([["READ_BANK"], ["READ_BANK"]]);
    await owner.post("/settings/keys", {
      ...form,
      kind: "ORG",
      label: "with box",
      scopes: "READ_BANK",
      sensitive: "on",
    });
    const [boxed] = await t.db
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, a.org.id), eq(apiKeys.label, "with box")));
    expect(boxed?.scopes).toEqual(["READ_BANK", "READ_SENSITIVE"]);
  });

  it("ends the session on sign-out, and a removed membership applies at once", async () => {
    const { t, a, member, signedIn } = await scene();
    const m = await signedIn(member.email);
    expect((await m.get("/settings/keys")).status).toBe(200);
    await t.db
      .delete(memberships)
      .where(and(eq(memberships.orgId, a.org.id), eq(memberships.userId, member.userId)));
    expect((await m.get("/settings/keys")).status).toBe(403);
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/keys");
    const cookie = owner.cookies.get("cr_session") ?? "";
    expect((await owner.post("/settings/logout", { _csrf: owner.csrf() })).status).toBe(303);
    const after = await t.app.request("/settings/keys", {
      headers: { cookie: `cr_session=${cookie}` },
    });
    expect(after.status).toBe(303);
  });

  it("ends sessions when the password changes", async () => {
    const { t, a, signedIn } = await scene();
    const owner = await signedIn(a.owner.email);
    await setUserPassword(t.db, {
      target: { userId: a.owner.userId },
      password: "another long passphrase",
      now,
    });
    expect((await owner.get("/settings/keys")).status).toBe(303);
  });

  it("lets a user in several organisations switch, and shows only the current one's keys", async () => {
    const { t, a, b, signedIn } = await scene();
    const both = await fixtureUser(t.db, now, { orgId: a.org.id, role: "admin", label: "both" });
    await t.db
      .insert(memberships)
      .values({ orgId: b.org.id, userId: both.userId, role: "member", createdAt: now });
    const bKey = await createApiKey(
      t.db,
      { kind: "ORG", orgId: b.org.id, label: "Beta agent", scopes: ["READ_BANK"] },
      now,
    );
    const u = await signedIn(both.email);
    await u.get("/settings/keys");
    const first = u.lastHtml.includes(bKey.prefix) ? b.org.id : a.org.id;
    const other = first === a.org.id ? b.org.id : a.org.id;
    expect(
      await u.post("/settings/org", { _csrf: u.csrf(), orgId: other, next: "/settings/keys" }),
    ).toMatchObject({
      status: 303,
    });
    await u.get("/settings/keys");
    expect(u.lastHtml.includes(bKey.prefix)).toBe(other === b.org.id);
  });

  it("refuses a form shown for another organisation than the one now selected", async () => {
    const { t, a, b, signedIn } = await scene();
    const both = await fixtureUser(t.db, now, { orgId: a.org.id, role: "admin", label: "both" });
    await t.db
      .insert(memberships)
      .values({ orgId: b.org.id, userId: both.userId, role: "admin", createdAt: now });
    const u = await signedIn(both.email);
    await u.get("/settings/keys");
    const shown = /name="_org" value="([^"]+)"/.exec(u.lastHtml)?.[1];
    expect([a.org.id, b.org.id]).toContain(shown);
    const token = u.csrf();
    // Another tab switches organisation.
    const other = shown === a.org.id ? b.org.id : a.org.id;
    await u.post("/settings/org", { _csrf: token, orgId: other, next: "/settings/keys" });
    const stale = await u.post("/settings/keys", {
      _csrf: token,
      _org: shown ?? "",
      kind: "ORG",
      label: "Meant for the first organisation",
      scopes: "READ_BANK",
    });
    expect(stale.status).toBe(409);
    expect(u.lastHtml).toContain("another organisation");
    const made = await t.db
      .select()
      .from(apiKeys)
      .where(eq(apiKeys.label, "Meant for the first organisation"));
    expect(made).toHaveLength(0);
  });

  it("answers 400 to a NUL in a field or query, and to a key form without its kind", async () => {
    const { t, a, signedIn } = await scene();
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/keys");
    const form = owner.orgForm();
    const nul = await owner.post("/settings/keys", {
      ...form,
      kind: "ORG",
      label: "a\u0000b",
      scopes: "READ_BANK",
    });
    expect(nul.status).toBe(400);
    expect((await owner.get("/settings/sensitive?q=a%00b")).status).toBe(400);
    const noKind = await owner.post("/settings/keys", {
      ...form,
      label: "No kind given",
      scopes: "READ_BANK",
    });
    expect(noKind.status).toBe(400);
    const made = await t.db.select().from(apiKeys).where(eq(apiKeys.label, "No kind given"));
    expect(made).toHaveLength(0);
  });

  it("shows a partner its clients and keys with their reach, and only to the partner user", async () => {
    const { t, a, b, signedIn } = await scene();
    const partnerUser = await fixtureUser(t.db, now, { label: "partner" });
    const partner = await createPartner(
      t.db,
      { name: "Ledger & Co", ownerEmail: partnerUser.email },
      now,
    );
    await linkPartner(t.db, partner.id, a.org.id, now);
    await linkPartner(t.db, partner.id, b.org.id, now);
    const pinned = await createApiKey(
      t.db,
      {
        kind: "PARTNER",
        partnerId: partner.id,
        label: "Pinned to Alpha",
        pinnedOrgIds: [a.org.id],
      },
      now,
    );
    const p = await signedIn(partnerUser.email);
    await p.get("/settings/partners");
    expect(p.lastHtml).toContain("Ledger &amp; Co");
    expect(p.lastHtml).toContain(a.org.id);
    expect(p.lastHtml).toContain(`Pinned: ${a.org.name.replace("&", "&amp;")}`);
    const made = await p.post(`/settings/partners/${partner.id}/keys`, {
      _csrf: p.csrf(),
      label: "All clients",
      reach: "ALL_LINKED",
    });
    expect(made.status).toBe(200);
    expect(p.lastHtml).toMatch(/crun_[0-9a-z]{10}_/);
    await p.get("/settings/partners");
    expect(p.lastHtml).toContain("All linked organisations (follows links; 2 now)");
    // The client's owner sees the link, not the partner's keys.
    const owner = await signedIn(a.owner.email);
    await owner.get("/settings/partners");
    expect(owner.lastHtml).toContain("Ledger &amp; Co");
    expect(owner.lastHtml).not.toContain(pinned.prefix);
    expect((await owner.get(`/settings/keys/${pinned.prefix}/audit`)).status).toBe(404);
    expect(
      (
        await owner.post(`/settings/partners/${partner.id}/keys`, {
          _csrf: owner.csrf(),
          label: "x",
        })
      ).status,
    ).toBe(404);
  });

  it("shows cash today and honest empty states, and draws a forecast when one exists", async () => {
    const { t, a, signedIn } = await scene();
    const owner = await signedIn(a.owner.email);
    await owner.get("/");
    expect(owner.lastHtml).toContain("173,000.50");
    expect(owner.lastHtml).toContain("No forecast computed yet.");
    expect(owner.lastHtml).toContain("No daily brief yet.");

    // The same screen with forecast and brief sources plugged in (as the later issues will).
    const app = createApi();
    app.use("*", async (c, next) => {
      c.set("logger", t.deps.logger);
      c.set("requestId", "test");
      await next();
    });
    registerWeb(app, t.deps, {
      dashboard: {
        latestForecast: async () => ({
          computedAt: now.toISOString(),
          startingCash: "100",
          weeks: Array.from({ length: 13 }, (_, i) => ({
            weekStart: `2026-03-${String(2 + i).padStart(2, "0")}`,
            weekEnd: `2026-03-${String(2 + i).padStart(2, "0")}`,
            opening: "0",
            inflow: "30",
            guaranteedInflow: "10",
            forecastInflow: "20",
            outflow: "25",
            closing: String(100 + 5 * (i + 1)),
          })),
        }),
        latestDailyBrief: async () => ({
          asOfDate: "2026-03-02",
          generatedAt: now.toISOString(),
          generatorTier: "rules",
          mainDriver: {
            headline: "Acme pays on time",
            bodyMarkdown: "**Acme** <script>x</script>",
          },
          riskSignal: { headline: "Week 6 dips", bodyMarkdown: "" },
          recommendedAction: { headline: "Chase INV-1002", bodyMarkdown: "" },
        }),
      },
    });
    const res = await app.request("/", {
      headers: { cookie: `cr_session=${owner.cookies.get("cr_session")}` },
    });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain("<polyline");
    expect(html).toContain("ending cash (week 13)");
    expect(html).toContain("165.00");
    // Real week dates on the axis and every point's exact closing for tests and tooltips.
    expect(html).toContain('data-closing="105"');
    // The closing cash never drops below zero: runway reaches past the horizon.
    expect(html).toContain("Beyond 13 weeks");
    expect(html).toContain("Acme pays on time");
    // Markdown rendered, never shown as raw markers; HTML in it stays text.
    expect(html).toContain("<strong>Acme</strong>");
    expect(html).not.toContain("**");
    expect(html).not.toContain("<script>x</script>");

    // The owner sets a runway threshold above week 1's closing (105): no week of runway left.
    const set = await owner.post("/settings/runway", {
      _csrf: owner.csrf(),
      _org: a.org.id,
      threshold: "115.50",
    });
    expect(set.status).toBe(303);
    const again = await app.request("/?notice=threshold", {
      headers: { cookie: `cr_session=${owner.cookies.get("cr_session")}` },
    });
    const html2 = await again.text();
    expect(html2).toContain('data-runway-weeks="0"');
    expect(html2).toContain("falls below 115.50 AUD in week 1");
    expect(html2).toContain("Runway threshold set to 115.5");
    const bad = await owner.post("/settings/runway", {
      _csrf: owner.csrf(),
      _org: a.org.id,
      threshold: "-5",
    });
    expect(bad.status).toBe(400);
  });
});
