import type { Db } from "../../src/db/client.ts";
import type { Role } from "../../src/db/schema/index.ts";
import { bankAccounts, cashItems, contacts, ledgerAccounts } from "../../src/db/schema/index.ts";
import { newId } from "../../src/domain/ids.ts";
import { createUser } from "../../src/services/users/create-user.ts";
import { setUserPassword } from "../../src/services/web-auth/set-password.ts";
import { createTestOrg } from "../helpers/factories.ts";

/** Every fixture user signs in with this (long enough for the password rule). */
export const FIXTURE_PASSWORD = "fixture passphrase 123";

let n = 0;

/** A user with a password and, with `orgId`, a membership of `role`. */
export async function fixtureUser(
  db: Db,
  now: Date,
  opts: { orgId?: string; role?: Role; label?: string } = {},
): Promise<{ userId: string; email: string; password: string }> {
  n += 1;
  const email = `${opts.label ?? "user"}-${n}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await createUser(
    db,
    { email, ...(opts.orgId ? { orgId: opts.orgId, role: opts.role ?? "member" } : {}) },
    now,
  );
  await setUserPassword(db, { target: { userId: user.id }, password: FIXTURE_PASSWORD, now });
  return { userId: user.id, email, password: FIXTURE_PASSWORD };
}

/** A small imported ledger: two bank accounts, two contacts, one invoice each. */
export interface LedgerFixture {
  operating: { accountId: string; bankAccountId: string; name: string };
  wages: { accountId: string; bankAccountId: string; name: string };
  acme: { id: string; externalId: string; name: string };
  secret: { id: string; externalId: string; name: string };
  invoiceNumbers: { acme: string; secret: string };
}

/** Inserts the ledger rows the web scenarios read, as an import would. */
export async function seedLedger(db: Db, orgId: string, now: Date): Promise<LedgerFixture> {
  const bank = async (code: string, name: string, balance: string) => {
    const accountId = newId("acc");
    await db.insert(ledgerAccounts).values({
      id: accountId,
      orgId,
      externalId: crypto.randomUUID(),
      code,
      name,
      type: "BANK",
      class: "ASSET",
      currency: "AUD",
      updatedAt: now,
    });
    const bankAccountId = newId("bank");
    await db.insert(bankAccounts).values({
      id: bankAccountId,
      orgId,
      ledgerAccountId: accountId,
      externalId: crypto.randomUUID(),
      name,
      currency: "AUD",
      reconciledBalance: balance,
      statementBalance: balance,
      balanceSyncedAt: now,
    });
    return { accountId, bankAccountId, name };
  };
  const contact = async (name: string) => {
    const id = newId("ctc");
    const externalId = crypto.randomUUID();
    await db
      .insert(contacts)
      .values({ id, orgId, externalId, name, isCustomer: true, lastSyncedAt: now });
    return { id, externalId, name };
  };
  const invoice = async (
    c: { externalId: string; name: string },
    number: string,
    amount: string,
  ) => {
    await db.insert(cashItems).values({
      id: newId("ci"),
      orgId,
      source: "LEDGER_INVOICE",
      externalId: crypto.randomUUID(),
      invoiceNumber: number,
      contactExternalId: c.externalId,
      contactName: c.name,
      status: "FORECAST",
      ledgerStatus: "AUTHORISED",
      currency: "AUD",
      amount,
      amountDue: amount,
      amountPaid: "0",
      issueDate: "2026-02-20",
      dueDate: "2026-03-20",
      expectedDate: "2026-03-20",
      lastSyncedAt: now,
    });
  };
  const operating = await bank("090", "Operating Account", "125000.50");
  const wages = await bank("091", "Wages Clearing", "48000.00");
  const acme = await contact("Acme Pty Ltd");
  const secret = await contact("Quiet Holdings");
  await invoice(acme, "INV-1001", "1100.00");
  await invoice(secret, "INV-1002", "2200.00");
  return {
    operating,
    wages,
    acme,
    secret,
    invoiceNumbers: { acme: "INV-1001", secret: "INV-1002" },
  };
}

/** A fresh organisation with an owner who can sign in, and its ledger. */
export async function webOrg(db: Db, now: Date, name?: string) {
  const org = await createTestOrg(db, { now, ...(name ? { name } : {}) });
  await setUserPassword(db, {
    target: { userId: org.ownerUserId },
    password: FIXTURE_PASSWORD,
    now,
  });
  const [owner] = await db.query.users.findMany({
    where: (u, { eq }) => eq(u.id, org.ownerUserId),
  });
  if (!owner) throw new Error("owner missing");
  const ledger = await seedLedger(db, org.id, now);
  const row = await db.query.organisations.findFirst({ where: (o, { eq }) => eq(o.id, org.id) });
  return {
    org: { ...org, name: row?.name ?? "" },
    owner: { userId: owner.id, email: owner.email, password: FIXTURE_PASSWORD },
    ledger,
  };
}
