import type { z } from "@hono/zod-openapi";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type {
  ContactDrillResponseSchema,
  ContactDrillSchema,
  RecentPaidInvoiceSchema,
} from "../../contracts/agent/contacts.ts";
import { listAccountLabels } from "../../db/queries/cash-items.ts";
import {
  type ContactDocumentRow,
  contactMoney,
  findContact,
  lastDocument,
  recentPaidInvoices,
} from "../../db/queries/contacts.ts";
import {
  accountOf,
  indexAccountLabels,
  isSensitiveAccount,
  SENSITIVE_ACCOUNT,
  UNCATEGORISED,
} from "../../domain/pagination/account-labels.ts";
import { dateTimeOrNull, decimalText, decimalTextOrNull } from "../../domain/pagination/format.ts";
import { localDate } from "../../domain/timezones.ts";
import { drillFields, getContactBaselines } from "../baselines/get-contact-baselines.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";

/** Most recent paid invoices in the drill (spec: Limits, drill history). */
export const RECENT_PAID_LIMIT = 50;

/** The contact drill (spec: ContactDrill). */
export type ContactDrill = z.infer<typeof ContactDrillSchema>;

/** lastInvoice / lastBill of the drill. */
type ContactDocument = NonNullable<ContactDrill["lastInvoice"]>;

/** An entry of recentPaidInvoices. */
type RecentPaidInvoice = z.infer<typeof RecentPaidInvoiceSchema>;

/** The drill without the alerts the transport adds. */
export type ContactDrillResponse = Omit<
  z.infer<typeof ContactDrillResponseSchema>,
  keyof typeof alertFields
>;

function toDocument(row: NonNullable<ContactDocumentRow>): ContactDocument {
  return {
    id: row.id,
    externalId: row.externalId,
    invoiceNumber: row.invoiceNumber,
    issueDate: dateTimeOrNull(row.issueDate),
    dueDate: dateTimeOrNull(row.dueDate),
    amount: decimalText(row.amount),
    amountDue: decimalTextOrNull(row.amountDue),
    currency: row.currency,
    ledgerStatus: row.ledgerStatus,
    actualDate: dateTimeOrNull(row.actualDate),
  };
}

/**
 * One contact by the ledger's ContactID, with what the projection gives now: identity and
 * flags, available credit, revenue (trailing 12 months and all time, ACTUAL inflows: the amount
 * paid on PAID sales invoices in the base currency, by paid date), the latest approved invoice
 * and bill, and up to 50 recent paid invoices with their dominant line's account. "Today" is the
 * organisation's local date. Without READ_SENSITIVE a sensitive contact answers exactly as an
 * unknown one (404), and recent paid invoices on sensitive accounts keep their place with
 * accountName `Sensitive account` and accountCode null (counted in redactedItemCount).
 *
 * @throws NotFoundError
 */
export async function getContact({
  ctx,
  id,
}: {
  ctx: ServiceContext;
  id: string;
}): Promise<ContactDrillResponse> {
  requireScope(ctx, "READ_CONTACTS");
  const orgId = ctx.org.id;
  if (id.includes("\u0000") || id.length > 255) throw new NotFoundError("contact");
  const contact = await findContact(ctx.db, orgId, id);
  const seeSensitive = canSeeSensitive(ctx);
  if (!contact || (contact.isSensitive && !seeSensitive)) throw new NotFoundError("contact");
  const today = localDate(ctx.now, ctx.org.timezone);
  const ref = { orgId, contactId: contact.externalId };
  const [money, lastInvoice, lastBill, paid, accountRows] = await Promise.all([
    contactMoney(ctx.db, { ...ref, baseCurrency: ctx.org.baseCurrency, today }),
    lastDocument(ctx.db, { ...ref, source: "LEDGER_INVOICE" }),
    lastDocument(ctx.db, { ...ref, source: "LEDGER_BILL" }),
    recentPaidInvoices(ctx.db, { ...ref, limit: RECENT_PAID_LIMIT }),
    listAccountLabels(ctx.db, orgId),
  ]);
  const baseline = (await getContactBaselines(ctx.db, orgId, [contact.externalId])).get(
    contact.externalId,
  );
  const labels = indexAccountLabels(accountRows);
  let redactedItemCount = 0;
  const recent = paid.map((row): RecentPaidInvoice => {
    const masked = !seeSensitive && isSensitiveAccount(labels, row.category);
    if (masked) redactedItemCount += 1;
    return {
      id: row.id,
      externalId: row.externalId,
      invoiceNumber: row.invoiceNumber,
      amount: decimalText(row.amount),
      currency: row.currency,
      paidDate: dateTimeOrNull(row.actualDate),
      issueDate: dateTimeOrNull(row.issueDate),
      accountCode: masked ? null : row.category,
      accountName: masked
        ? SENSITIVE_ACCOUNT
        : (accountOf(labels, row.category)?.name ?? UNCATEGORISED),
    };
  });
  return {
    contact: {
      id: contact.externalId,
      name: contact.name,
      isCustomer: contact.isCustomer,
      isSupplier: contact.isSupplier,
      isSensitive: contact.isSensitive,
      lastSyncedAt: contact.lastSyncedAt.toISOString(),
      availableCredit: decimalText(money.availableCredit),
      revenueTrailing12m: decimalText(money.revenueTrailing12m),
      revenueAllTime: decimalText(money.revenueAllTime),
      // Margin, LTVs, lifetime, cadence, ABC class and payment delay: the contact baselines.
      ...drillFields(baseline, {
        revenueAllTime: decimalText(money.revenueAllTime),
        revenueTrailing12m: decimalText(money.revenueTrailing12m),
      }),
      ...(lastInvoice ? { lastInvoice: toDocument(lastInvoice) } : {}),
      ...(lastBill ? { lastBill: toDocument(lastBill) } : {}),
      recentPaidInvoices: recent,
    },
    redactedItemCount,
  };
}
