import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { contacts, ledgerAccounts } from "../../src/db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { TEST_NOW, testApp } from "../helpers/api.ts";
import { testDriver } from "../helpers/test-db.ts";
import { WebClient } from "./web-client.ts";
import { FIXTURE_PASSWORD, webOrg } from "./web-fixtures.ts";

/* Sensitive data: the session's first flag change asks first; the account list pages. */
async function scene() {
  const t = await testApp();
  const a = await webOrg(t.db, TEST_NOW, `Flags ${Math.random().toString(36).slice(2, 6)}`);
  const owner = new WebClient(t.app);
  expect((await owner.signIn(a.owner.email, FIXTURE_PASSWORD)).status).toBe(303);
  return { t, a, owner };
}

const flagOf = async (
  t: Awaited<ReturnType<typeof testApp>>,
  table: typeof contacts | typeof ledgerAccounts,
  id: string,
) => (await t.db.select().from(table).where(eq(table.id, id)))[0]?.isSensitive;

describe(`sensitive flags: confirmation and paging (${testDriver})`, () => {
  it("asks before the session's first flag change (nothing changes until confirmed), then not again", async () => {
    const { t, a, owner } = await scene();
    await owner.get("/settings/sensitive");
    const form = owner.orgForm();
    const contact = a.ledger.acme.id;
    const first = await owner.post("/settings/sensitive", {
      ...form,
      kind: "contact",
      id: contact,
      sensitive: "on",
      back: "/settings/sensitive?q=&page=1#contacts",
    });
    expect(first.status).toBe(200);
    expect(owner.lastHtml).toContain('id="confirm-sensitive"');
    expect(owner.lastHtml).toContain(a.ledger.acme.name);
    expect(owner.lastHtml).toContain('name="confirmSensitive" value="yes"');
    expect(await flagOf(t, contacts, contact)).toBe(false);

    const confirmed = await owner.post("/settings/sensitive", {
      ...form,
      kind: "contact",
      id: contact,
      sensitive: "on",
      confirmSensitive: "yes",
    });
    expect(confirmed.status).toBe(303);
    expect(await flagOf(t, contacts, contact)).toBe(true);

    // Later changes in the session apply at once, on either page.
    const cleared = await owner.post("/settings/sensitive", {
      ...form,
      kind: "contact",
      id: contact,
      sensitive: "off",
    });
    expect(cleared.status).toBe(303);
    expect(await flagOf(t, contacts, contact)).toBe(false);
    const account = a.ledger.wages.accountId;
    const viaCategories = await owner.post("/settings/categories", {
      ...form,
      accountId: account,
      sensitive: "on",
    });
    expect(viaCategories.status).toBe(303);
    expect(await flagOf(t, ledgerAccounts, account)).toBe(true);

    // A new session asks again, also on the categories page; its other fields wait too.
    const again = new WebClient(t.app);
    expect((await again.signIn(a.owner.email, FIXTURE_PASSWORD)).status).toBe(303);
    await again.get("/settings/categories");
    const res = await again.post("/settings/categories", {
      ...again.orgForm(),
      accountId: account,
      included: "no",
    });
    expect(res.status).toBe(200);
    expect(again.lastHtml).toContain('id="confirm-sensitive"');
    expect(again.lastHtml).toContain('name="included" value="no"');
    expect(await flagOf(t, ledgerAccounts, account)).toBe(true);
    const [row] = await t.db.select().from(ledgerAccounts).where(eq(ledgerAccounts.id, account));
    expect(row?.includeInBurn).toBeNull();
    // Saving a row without changing its flag asks nothing.
    const same = await again.post("/settings/categories", {
      ...again.orgForm(),
      accountId: account,
      included: "no",
      sensitive: "on",
    });
    expect(same.status).toBe(303);
  });

  it("pages the account list 25 at a time with a search by name or code, keeping the contacts' state", async () => {
    const { t, a, owner } = await scene();
    for (let i = 0; i < 30; i++) {
      await t.db.insert(ledgerAccounts).values({
        id: newId("acc"),
        orgId: a.org.id,
        externalId: crypto.randomUUID(),
        code: `9${String(i).padStart(2, "0")}`,
        name: `Expense line ${i}`,
        type: "EXPENSE",
        class: "EXPENSE",
        updatedAt: TEST_NOW,
      });
    }
    await owner.get("/settings/sensitive");
    const rows = (html: string) =>
      (/<table id="account-flags">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "").match(/<tr data-id=/g)
        ?.length ?? 0;
    expect(rows(owner.lastHtml)).toBe(25);
    expect(owner.lastHtml).toMatch(/\d+ accounts · page 1 of 2/);
    expect(owner.lastHtml).toContain("apage=2");
    await owner.get("/settings/sensitive?apage=2&q=Acme");
    expect(rows(owner.lastHtml)).toBeGreaterThan(0);
    expect(owner.lastHtml).toContain("page 2 of 2");
    // The contact search is kept in the account pager's links and form.
    expect(owner.lastHtml).toContain('name="q" value="Acme"');
    await owner.get("/settings/sensitive?aq=expense%20line%201");
    // "Expense line 1" and 10 to 19.
    expect(rows(owner.lastHtml)).toBe(11);
    await owner.get("/settings/sensitive?aq=905");
    expect(rows(owner.lastHtml)).toBe(1);
    expect(owner.lastHtml).toContain("Expense line 5");
  });
});
