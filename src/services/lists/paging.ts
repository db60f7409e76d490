import { boundedCache } from "../../cache.ts";
import { listSensitiveContactIds } from "../../db/queries/contacts.ts";
import {
  type CursorBinding,
  CursorError,
  type CursorKey,
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
 *
 * Cursors are sealed with the deployment's key (`listPaging(cursorSecretOf(config))`, made once
 * by the routes and passed to each list verb as `paging`): every instance sharing CURSOR_SECRET
 * opens every cursor, across restarts, and a cursor sealed under another secret answers 400
 * `invalid_cursor` like any cursor that is not ours.
 */

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
export function planListPage(req: PageRequest, binding: CursorBinding, key: CursorKey): PagePlan {
  try {
    return planPage(req, binding, key);
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
  key: CursorKey,
): CutPage<Row> {
  return cutPage(fetched, req, position, binding, key);
}

/** The matched count and, when asked for, the totals (`T`: the list's totals shape). */
export interface Counted<T = StatusTotals> {
  totalCount: number;
  totals?: T;
  totalsTruncated?: true;
}

/**
 * `totals=true` of the document lists: the by-status totals and the matched count from one
 * grouped aggregate over the whole matched set (the count must be exact anyway, so a separate
 * bounded pass would only add a query, and the single aggregate can run in parallel workers).
 * Past TOTALS_CAP matched rows the totals are withheld (`totalsTruncated`).
 */
export async function countWithStatusTotals(
  statuses: readonly string[],
  sum: () => Promise<StatusCurrencyGroup[]>,
): Promise<Counted<StatusTotals>> {
  const groups = await sum();
  const n = groupCount(groups);
  if (n > TOTALS_CAP) return { totalCount: n, totalsTruncated: true };
  return { totalCount: n, totals: statusTotals(groups, statuses) };
}

/** A list request as paging sees it: the page, and whether totals were asked for. */
export interface ListRequest extends PageRequest {
  totals: boolean;
}

/** The queries of one list request, as `loadListPage` runs them. */
export interface ListQueries<Row, T> {
  /** Rows strictly after `after` in the list's order, at most `limit`. */
  page(after: CursorPosition | undefined, limit: number): Promise<Row[]>;
  /** A row's position in the list's order (what the next cursor holds). */
  position(row: Row): CursorPosition;
  /** The matched rows, before redaction. */
  count(): Promise<number>;
  /** With `totals=true`: the count and the totals from one aggregate (instead of `count`). */
  countWithTotals(): Promise<Counted<T>>;
  /**
   * The organisation's data epoch (`readOrgDataEpoch`). With it, counts and totals are kept per
   * epoch in `paging.counts` and served again until a write moves the epoch; without it, every
   * request that needs a count counts.
   */
  epoch?(): Promise<number>;
}

/**
 * Counts (and totals) of each list (organisation, list, filters, with or without totals) at the
 * data epoch they were counted at. An entry answers only a request that read the same epoch, so
 * it is the count of that request's data: the epoch moves with every statement that writes the
 * listed rows (drizzle/0014_org_data_epoch_triggers.sql), and an entry is kept only when the
 * epoch read after the count equals the one read before it (no write in between). Bounded
 * (src/cache.ts, `listCounts`).
 */
export class ListCounts {
  readonly #entries = boundedCache<string, { epoch: number; counted: Counted<unknown> }>(
    "listCounts",
  );

  get<T>(key: string, epoch: number): Counted<T> | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.epoch === epoch ? (entry.counted as Counted<T>) : undefined;
  }

  set(key: string, epoch: number, counted: Counted<unknown>): void {
    this.#entries.set(key, { epoch, counted });
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * The last known size of each list (organisation, list, filters): a scheduling hint for
 * `loadListPage`, never an answer. A list known to fit in one fetch is fetched first and
 * counted only if it no longer fits; any other list is counted alongside its fetch. Bounded
 * (src/cache.ts, `listSizes`): a forgotten list is merely counted alongside again.
 */
export class ListSizes {
  readonly #sizes = boundedCache<string, number>("listSizes");

  get(binding: CursorBinding): number | undefined {
    return this.#sizes.get(sizeKey(binding));
  }

  set(binding: CursorBinding, totalCount: number): void {
    this.#sizes.set(sizeKey(binding), totalCount);
  }
}

const sizeKey = (b: CursorBinding) => `${b.orgId}\u0000${b.resource}\u0000${b.filterHash}`;

/**
 * What the list verbs need from the deployment, made once (by the routes) and passed to each
 * list verb: the key that seals and opens cursors, and the lists' last known sizes.
 */
export interface ListPaging {
  cursorKey: CursorKey;
  sizes: ListSizes;
  counts: ListCounts;
}

/** The lists' paging for a deployment whose cursor secret is `secret` (see config.ts). */
export function listPaging(secret: string): ListPaging {
  return { cursorKey: cursorKey(secret), sizes: new ListSizes(), counts: new ListCounts() };
}

/** A page cut before redaction, with its count possibly still on its way. */
export interface LoadedPage<Row, T> {
  page: CutPage<Row>;
  /**
   * The count (and totals). Already settled when the fetch itself told the count; otherwise the
   * count query may still be running while the caller builds its rows: await it last. A
   * rejection is reported there (it never goes unhandled meanwhile).
   */
  counted: Promise<Counted<T>>;
}

/**
 * Fetches a planned page and its `totalCount`, with a count query only when the rows in hand
 * cannot tell it:
 *
 * - A fetch from the start of the list (no cursor, or autoPaginate, which ignores the cursor)
 *   that returns at most the page size (`limit`, or AUTO_PAGINATE_CAP) holds the whole matched
 *   set: totalCount is the number of rows fetched. That covers every autoPaginate response of up
 *   to 5,000 rows, an empty result, and a first page that is also the last. The number is the
 *   count of the same snapshot as the rows.
 *   - If the list fitted in one fetch when last seen (`paging.sizes`), it is fetched alone; the
 *     count runs only if it no longer fits.
 *   - Otherwise (a large or unknown list) the count starts alongside the fetch, so that a large
 *     list's answer waits for the slower of the two, not their sum; if the fetch turns out to
 *     hold the whole set, the answer does not wait for the count.
 * - A page after a cursor: the rows before the cursor are not in hand, so the count always runs,
 *   alongside the page (a last page reached by cursor included).
 * - `totals=true`: one aggregate gives the count and the totals, alongside the page.
 *
 * Counts are before redaction either way (the page is cut before redaction).
 */
export async function loadListPage<Row, T>(
  req: ListRequest,
  plan: PagePlan,
  binding: CursorBinding,
  paging: ListPaging,
  q: ListQueries<Row, T>,
): Promise<LoadedPage<Row, T>> {
  const count = () =>
    countAtEpoch(paging, binding, "count", q, () =>
      q.count().then((n): Counted<T> => ({ totalCount: n })),
    );
  const countWithTotals = () => countAtEpoch(paging, binding, "totals", q, q.countWithTotals);
  let fetched: Row[];
  let counted: Promise<Counted<T>>;
  if (req.totals || plan.after !== undefined) {
    const [rows, c] = await Promise.all([
      q.page(plan.after, plan.fetchLimit),
      req.totals ? countWithTotals() : count(),
    ]);
    fetched = rows;
    counted = Promise.resolve(c);
  } else {
    // fetchLimit is one row more than the page holds: fewer rows means the whole set came.
    const pageSize = plan.fetchLimit - 1;
    const known = paging.sizes.get(binding);
    const early = known === undefined || known > pageSize ? handled(count()) : undefined;
    fetched = await q.page(undefined, plan.fetchLimit);
    counted =
      fetched.length <= pageSize
        ? Promise.resolve({ totalCount: fetched.length })
        : handled(early ?? count());
  }
  counted.then((c) => paging.sizes.set(binding, c.totalCount), noop);
  return { page: cutListPage(fetched, req, q.position, binding, paging.cursorKey), counted };
}

const noop = () => {};

/**
 * A count from `paging.counts` when one was made at the epoch this request reads, else `run()`,
 * kept for later requests if no write moved the epoch while it ran.
 */
async function countAtEpoch<T>(
  paging: ListPaging,
  binding: CursorBinding,
  kind: "count" | "totals",
  q: Pick<ListQueries<unknown, T>, "epoch">,
  run: () => Promise<Counted<T>>,
): Promise<Counted<T>> {
  if (!q.epoch) return run();
  const key = `${sizeKey(binding)}\u0000${kind}`;
  const epoch = await q.epoch();
  const known = paging.counts.get<T>(key, epoch);
  if (known) return known;
  const counted = await run();
  if ((await q.epoch()) === epoch) paging.counts.set(key, epoch, counted);
  return counted;
}

/**
 * Marks a promise handled: should the caller fail before awaiting it (or never need it), a
 * failed count must not become an unhandled rejection, which ends the process. Awaiting the
 * promise still throws.
 */
function handled<P>(promise: Promise<P>): Promise<P> {
  promise.catch(noop);
  return promise;
}

/** The fields every list response carries after its array, in the spec's order. */
export interface ListFields<T> {
  nextCursor: string | null;
  totalCount: number;
  redactedItemCount: number;
  truncated?: true;
  totals?: T;
  totalsTruncated?: true;
}

/**
 * A list response: the array named `name` first, then nextCursor, totalCount,
 * redactedItemCount, and the optional truncated, totals and totalsTruncated (absent, not false
 * or null, when they do not apply).
 */
export function listBody<K extends string, R, T>(
  name: K,
  rows: R[],
  page: CutPage<unknown>,
  counted: Counted<T>,
  redactedItemCount: number,
): { [P in K]: R[] } & ListFields<T> {
  return {
    [name]: rows,
    nextCursor: page.nextCursor,
    totalCount: counted.totalCount,
    redactedItemCount,
    ...(page.truncated ? { truncated: true as const } : {}),
    ...(counted.totals ? { totals: counted.totals } : {}),
    ...(counted.totalsTruncated ? { totalsTruncated: true as const } : {}),
  } as { [P in K]: R[] } & ListFields<T>;
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

/**
 * True when the row's contact is one of `hidden`. With nobody hidden (a READ_SENSITIVE key, or
 * an organisation without sensitive contacts) no id is looked up: hashing 5,000 fresh id strings
 * cost about 1 ms of a 5,000-row page.
 */
export function isHidden(hidden: ReadonlySet<string>, contactId: string | null): boolean {
  return hidden.size !== 0 && contactId !== null && hidden.has(contactId);
}
