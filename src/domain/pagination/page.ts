import { type CursorBinding, type CursorPosition, decodeCursor, encodeCursor } from "./cursor.ts";
import { AUTO_PAGINATE_CAP } from "./params.ts";

/** How a list request pages: a cursor page of `limit` rows, or the whole set up to the cap. */
export interface PageRequest {
  cursor?: string | undefined;
  limit: number;
  autoPaginate: boolean;
}

/** What to fetch: rows strictly after `after` in the list's order, at most `fetchLimit`. */
export interface PagePlan {
  after: CursorPosition | undefined;
  /** One row more than the page holds, to learn whether another page (or overflow) exists. */
  fetchLimit: number;
}

/**
 * Plans the fetch. With autoPaginate the cursor is ignored, as the spec says (not even checked).
 * @throws CursorError for a cursor that does not open or does not match the binding.
 */
export function planPage(req: PageRequest, binding: CursorBinding, key: Buffer): PagePlan {
  if (req.autoPaginate) return { after: undefined, fetchLimit: AUTO_PAGINATE_CAP + 1 };
  const after = req.cursor ? decodeCursor(req.cursor, binding, key) : undefined;
  return { after, fetchLimit: req.limit + 1 };
}

/** A page cut from the fetched rows, before redaction. */
export interface CutPage<Row> {
  rows: Row[];
  /** null on the last page and on every autoPaginate response. */
  nextCursor: string | null;
  /** autoPaginate only: more than AUTO_PAGINATE_CAP rows matched. */
  truncated: boolean;
}

/**
 * Cuts the page from rows fetched by `planPage`'s plan. The next cursor points after the page's
 * last row *before redaction*, so every key walks the same pages whatever it may see.
 */
export function cutPage<Row>(
  fetched: Row[],
  req: PageRequest,
  position: (row: Row) => CursorPosition,
  binding: CursorBinding,
  key: Buffer,
): CutPage<Row> {
  if (req.autoPaginate) {
    const truncated = fetched.length > AUTO_PAGINATE_CAP;
    if (truncated) fetched.length = AUTO_PAGINATE_CAP;
    return { rows: fetched, nextCursor: null, truncated };
  }
  if (fetched.length <= req.limit) return { rows: fetched, nextCursor: null, truncated: false };
  fetched.length = req.limit;
  const last = fetched[req.limit - 1] as Row;
  return {
    rows: fetched,
    nextCursor: encodeCursor(position(last), binding, key),
    truncated: false,
  };
}
