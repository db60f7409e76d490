/*
 * The query-parameter rules shared by the agent API's lists (invoices, bills, credit notes,
 * purchase orders, contacts). Pure functions; the HTTP layer turns a failure into 400
 * `invalid_parameter` naming the parameter.
 */

/** Rows per page when `limit` is omitted. */
export const DEFAULT_PAGE_LIMIT = 50;
/** The largest page; a larger `limit` is capped to it, not refused. */
export const MAX_PAGE_LIMIT = 200;
/** The most rows `autoPaginate=true` returns; more matched rows set `truncated`. */
export const AUTO_PAGINATE_CAP = 5_000;
/** The most matched rows `totals=true` aggregates; more set `totalsTruncated` instead. */
export const TOTALS_CAP = 100_000;

/**
 * A page size: a positive whole number in decimal digits; above MAX_PAGE_LIMIT it is capped.
 * @returns the limit, or undefined when the text is not a positive integer.
 */
export function parseLimit(text: string): number | undefined {
  if (!/^\d{1,30}$/.test(text)) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 1) return undefined;
  return Math.min(n, MAX_PAGE_LIMIT);
}

/** `true`/`1` and `false`/`0`, exactly; anything else (`yes`, `TRUE`, empty) is undefined. */
export function parseBooleanParam(text: string): boolean | undefined {
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  return undefined;
}

/** A real calendar date written `YYYY-MM-DD`, year 0001 to 9999 (one implementation). */
export { isCalendarDate } from "../forecasting/dates.ts";

/**
 * A `status` filter: comma-separated values (the parameter may also be repeated), trimmed and
 * upper-cased, kept when they belong to `vocabulary`; unknown ones are ignored, as the spec says
 * ("Unknown values are ignored"), never matched literally.
 *
 * - no parameter, only empty entries (`status=`, `status=,`), or no known value among the
 *   entries (`status=UNPAID`): null, no filter. Ignoring every value leaves nothing to filter
 *   by, so the answer is the unfiltered list (a 400 would not be "ignoring" them);
 * - otherwise the known statuses, each once, in vocabulary order (`status=PAID,UNPAID` is
 *   `status=PAID`).
 */
export function parseStatusFilter<S extends string>(
  raw: string | readonly string[] | undefined,
  vocabulary: readonly S[],
): S[] | null {
  if (raw === undefined) return null;
  const wanted = new Set(
    (typeof raw === "string" ? [raw] : raw)
      .flatMap((s) => s.split(","))
      .map((s) => s.trim().toUpperCase()),
  );
  const known = vocabulary.filter((s) => wanted.has(s));
  return known.length > 0 ? known : null;
}
