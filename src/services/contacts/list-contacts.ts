import type { z } from "@hono/zod-openapi";
import type { ContactSummarySchema, ContactsTotalsSchema } from "../../contracts/agent/contacts.ts";
import {
  type ContactFilter,
  type ContactRow,
  type ContactSort,
  type ContactType,
  countContacts,
  countContactsByType,
  listContactPage,
} from "../../db/queries/contacts.ts";
import { readOrgDataEpoch } from "../../db/queries/data-epochs.ts";
import { TOTALS_CAP } from "../../domain/pagination/params.ts";
import { getContactBaselines } from "../baselines/get-contact-baselines.ts";
import { canSeeSensitive, requireScope, type ServiceContext } from "../context.ts";
import {
  bindCursor,
  type Counted,
  type ListFields,
  type ListPaging,
  listBody,
  loadListPage,
  planListPage,
} from "../lists/paging.ts";

export type { ContactSort, ContactType } from "../../db/queries/contacts.ts";

/** The query of GET /api/agent/contacts, validated by the route. */
export interface ListContactsInput {
  type: ContactType;
  sort: ContactSort;
  cursor?: string | undefined;
  limit: number;
  autoPaginate: boolean;
  totals: boolean;
}

/** A contact (spec: ContactSummary). */
export type ContactSummary = z.infer<typeof ContactSummarySchema>;

/** ContactsTotals: disjoint counts by type, honouring the `type` filter. */
export type ContactsTotals = z.infer<typeof ContactsTotalsSchema>;

export type ContactsPage = { contacts: ContactSummary[] } & ListFields<ContactsTotals>;

function toSummary(row: ContactRow): ContactSummary {
  return {
    id: row.externalId,
    name: row.name,
    isCustomer: row.isCustomer,
    isSupplier: row.isSupplier,
    isSensitive: row.isSensitive,
    lastSyncedAt: row.lastSyncedAt.toISOString(),
    ltv: null,
  };
}

/**
 * One page (or with autoPaginate the whole set up to 5,000) of the organisation's contacts.
 *
 * - `type`: `customer` (IsCustomer), `supplier` (IsSupplier) or `both` (everyone); a contact
 *   that is both appears under each.
 * - `sort`: `recent_desc` by lastSyncedAt; `revenue_desc` and `spend_desc` both by the
 *   cumulative LTV of the contact baselines (the rows' `ltv`), nulls last, over the whole set in
 *   the database; ties by id, descending.
 * - Without READ_SENSITIVE, sensitive contacts are withheld and counted in redactedItemCount;
 *   totalCount and totals count every matched contact.
 *
 * @throws ServiceError `invalid_cursor`.
 */
export async function listContacts({
  ctx,
  input,
  paging,
}: {
  ctx: ServiceContext;
  input: ListContactsInput;
  /** The deployment's cursor key and list sizes (routes make it once: `listPaging`). */
  paging: ListPaging;
}): Promise<ContactsPage> {
  requireScope(ctx, "READ_CONTACTS");
  const filter: ContactFilter = { orgId: ctx.org.id, type: input.type };
  // Each sort is its own list: a cursor of one sort is refused by another.
  const binding = bindCursor(`contacts:${input.sort}`, ctx.org.id, { type: input.type });
  const plan = planListPage(input, binding, paging.cursorKey);
  const { page, counted } = await loadListPage(input, plan, binding, paging, {
    page: (after, limit) => listContactPage(ctx.db, filter, { sort: input.sort, after, limit }),
    position: (r) => ({ key: r.sortKey, id: r.id }),
    count: () => countContacts(ctx.db, filter),
    countWithTotals: () => countWithTypeTotals(ctx, filter),
    epoch: () => readOrgDataEpoch(ctx.db, ctx.org.id),
  });
  const seeSensitive = canSeeSensitive(ctx);
  let redactedItemCount = 0;
  const out: ContactSummary[] = [];
  for (const row of page.rows) {
    if (!seeSensitive && row.isSensitive) redactedItemCount += 1;
    else out.push(toSummary(row));
  }
  // ContactSummary.ltv: the nightly baseline's cumulative gross-profit LTV (docs/insights.md).
  const baselines = await getContactBaselines(
    ctx.db,
    ctx.org.id,
    out.map((c) => c.id),
  );
  for (const c of out) c.ltv = baselines.get(c.id)?.ltv ?? null;
  return listBody("contacts", out, page, await counted, redactedItemCount);
}

/** As `countWithStatusTotals` for documents: one aggregate gives the counts by type and the total. */
async function countWithTypeTotals(
  ctx: ServiceContext,
  filter: ContactFilter,
): Promise<Counted<ContactsTotals>> {
  const byType = await countContactsByType(ctx.db, filter);
  const n = byType.customer + byType.supplier + byType.both + byType.neither;
  if (n > TOTALS_CAP) return { totalCount: n, totalsTruncated: true };
  return { totalCount: n, totals: { byType, grandTotal: { count: n } } };
}
