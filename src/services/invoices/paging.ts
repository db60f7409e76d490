import { listSensitiveContactIds } from "../../db/queries/contacts.ts";
import {
  type CursorBinding,
  CursorError,
  type CursorPosition,
  cursorKey,
  filterHash,
} from "../../domain/pagination/cursor.ts";
import {
  type CutPage,
  cutPage,
  type PagePlan,
  type PageRequest,
  planPage,
} from "../../domain/pagination/page.ts";
import { TOTALS_CAP } from "../../domain/pagination/params.ts";
import {
  groupCount,
  type StatusCurrencyGroup,
  type StatusTotals,
  statusTotals,
} from "../../domain/pagination/totals.ts";
import { canSeeSensitive, type ServiceContext } from "../context.ts";
import { ServiceError } from "../errors.ts";

/*
 * Cursor paging shared by the list verbs (invoices, bills, credit notes, purchase orders,
 * contacts): plan the fetch from the request's cursor, cut the page, issue the next cursor.
 */

/**
 * The cursor encryption key. Decision: a fixed application secret, so that every instance and
 * every restart opens every cursor (cursors stay valid across deploys). Confidentiality of the
 * position is defence in depth, not a security boundary: a cursor only ever points into data of
 * the organisation it is bound to, and the binding (organisation, list, filters) is checked on
 * every use. A deployment secret can replace it without changing the format.
 */
const CURSOR_KEY = cursorKey("cashrunway agent api list cursors");

/** A 400 `invalid_cursor` naming the parameter. */
export function invalidCursor(message: string): ServiceError {
  return new ServiceError("invalid_cursor", message, { parameter: "cursor" });
}

/** The binding of a list's cursors: resource, organisation and the normalised filters. */
export function bindCursor(
  resource: string,
  orgId: string,
  filters: Readonly<Record<string, unknown>>,
): CursorBinding {
  return { resource, orgId, filterHash: filterHash(filters) };
}

/**
 * What to fetch for this request.
 * @throws ServiceError `invalid_cursor` for a malformed, tampered, foreign or mismatched cursor.
 */
export function planListPage(req: PageRequest, binding: CursorBinding): PagePlan {
  try {
    return planPage(req, binding, CURSOR_KEY);
  } catch (e) {
    if (e instanceof CursorError) throw invalidCursor(e.message);
    throw e;
  }
}

/** Cuts the page (before redaction) and issues the next cursor. */
export function cutListPage<Row>(
  fetched: Row[],
  req: PageRequest,
  position: (row: Row) => CursorPosition,
  binding: CursorBinding,
): CutPage<Row> {
  return cutPage(fetched, req, position, binding, CURSOR_KEY);
}

/** The matched count, and the totals when asked for. */
export interface CountAndTotals {
  totalCount: number;
  totals?: StatusTotals;
  totalsTruncated?: true;
}

/**
 * The matched count and, with `totals`, the by-status totals. With totals, one grouped aggregate
 * over the whole matched set gives both: the count must be exact anyway (totalCount), so a
 * separate bounded pass would only add a query, and the single aggregate can run in parallel
 * workers. Past TOTALS_CAP matched rows the totals are withheld (`totalsTruncated`).
 */
export async function countAndTotals(
  totals: boolean,
  statuses: readonly string[],
  count: () => Promise<number>,
  sum: () => Promise<StatusCurrencyGroup[]>,
): Promise<CountAndTotals> {
  if (!totals) return { totalCount: await count() };
  const groups = await sum();
  const n = groupCount(groups);
  if (n > TOTALS_CAP) return { totalCount: n, totalsTruncated: true };
  return { totalCount: n, totals: statusTotals(groups, statuses) };
}

const NOBODY: ReadonlySet<string> = new Set();

/**
 * The contacts whose rows this key may not see: the organisation's sensitive contacts (ledger
 * ids), or nobody for a key with READ_SENSITIVE (then nothing is read).
 */
export async function hiddenContacts(ctx: ServiceContext): Promise<ReadonlySet<string>> {
  if (canSeeSensitive(ctx)) return NOBODY;
  return new Set(await listSensitiveContactIds(ctx.db, ctx.org.id));
}

/** True when the row's contact is one of `hidden`. */
export function isHidden(hidden: ReadonlySet<string>, contactId: string | null): boolean {
  return contactId !== null && hidden.has(contactId);
}
