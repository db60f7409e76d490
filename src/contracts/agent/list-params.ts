import { z } from "@hono/zod-openapi";
import {
  AUTO_PAGINATE_CAP,
  DEFAULT_PAGE_LIMIT,
  isCalendarDate,
  MAX_PAGE_LIMIT,
  parseBooleanParam,
  parseLimit,
  TOTALS_CAP,
} from "../../domain/pagination/params.ts";

/*
 * Query parameters shared by the document and contact lists. A bad value answers 400
 * `invalid_parameter` with `parameter` naming it (the API's defaultHook reports the first Zod
 * issue's path). Text is checked for NUL, which PostgreSQL text cannot hold: such a value is a
 * 400, never a 5xx.
 */

/** PostgreSQL text cannot hold NUL: a value with one is refused (400), never sent (5xx). */
export const NO_NUL = (s: string) => !s.includes("\u0000");

/** `limit`: 1 or more, default 50, capped at 200. */
export const limitParam = z
  .string()
  .optional()
  .refine((s) => s === undefined || parseLimit(s) !== undefined, {
    message: "must be a positive whole number",
  })
  .transform((s) => (s === undefined ? DEFAULT_PAGE_LIMIT : (parseLimit(s) ?? DEFAULT_PAGE_LIMIT)))
  .openapi({
    param: { name: "limit", in: "query" },
    type: "integer",
    minimum: 1,
    default: DEFAULT_PAGE_LIMIT,
    description:
      `Rows per page: a positive whole number, default ${DEFAULT_PAGE_LIMIT}; values above ` +
      `${MAX_PAGE_LIMIT} are capped at ${MAX_PAGE_LIMIT} (no error). Zero, negative or ` +
      "non-integer values answer 400 `invalid_parameter`. Ignored with autoPaginate=true.",
    example: 200,
  });

/** `cursor`: a previous response's nextCursor. */
export const cursorParam = z
  .string()
  .optional()
  .openapi({
    param: { name: "cursor", in: "query" },
    description:
      "The `nextCursor` of the previous page, passed back unchanged with the same filters. " +
      "Cursors are opaque, bound to the organisation, the list and its filters, and sealed " +
      "with the deployment's secret: they stay valid across restarts and instances, but a " +
      "malformed, changed, foreign or mismatched one, or one sealed before the deployment " +
      "changed its secret, answers 400 `invalid_cursor` (start again from the first page). " +
      "Ignored (not even checked) with autoPaginate=true.",
  });

/** A boolean flag: `true`/`1` or `false`/`0` exactly; default false. */
export function booleanParam(name: string, description: string) {
  return z
    .string()
    .optional()
    .refine((s) => s === undefined || parseBooleanParam(s) !== undefined, {
      message: "must be true, false, 1 or 0",
    })
    .transform((s) => (s === undefined ? false : parseBooleanParam(s) === true))
    .openapi({
      param: { name, in: "query" },
      type: "string",
      enum: ["true", "false", "1", "0"],
      default: "false",
      description: `${description} Accepts \`true\`/\`1\` and \`false\`/\`0\` only; anything else answers 400 \`invalid_parameter\`.`,
    });
}

/** `autoPaginate`, the same on every list. */
export const autoPaginateParam = booleanParam(
  "autoPaginate",
  `When true, the whole matched set in one response, at most ${AUTO_PAGINATE_CAP.toLocaleString("en")} ` +
    "rows in the list's order; `truncated` is true when more matched (then page with cursors). " +
    "`cursor` and `limit` are ignored and `nextCursor` is null.",
);

/** `totals`, the same on every list but for what it sums. */
export function totalsParam(what: string) {
  return booleanParam(
    "totals",
    `When true, adds \`totals\` ${what} over the whole filtered set (not only the page), ` +
      `counted before redaction and computed in the database. Over ${TOTALS_CAP.toLocaleString("en")} ` +
      "matched rows `totals` is omitted and `totalsTruncated` is true.",
  );
}

/** A `YYYY-MM-DD` calendar date bound. */
export function dateParam(name: string, description: string) {
  return z
    .string()
    .refine(isCalendarDate, { message: "must be a real calendar date written YYYY-MM-DD" })
    .optional()
    .openapi({
      param: { name, in: "query" },
      format: "date",
      description: `${description} A real calendar date \`YYYY-MM-DD\`; an impossible date (\`2023-02-29\`) or another format answers 400 \`invalid_parameter\`.`,
      example: "2024-01-31",
    });
}

/** `contactId`: the ledger contact id (ContactID), as `contactId` on rows. */
export const contactIdParam = z
  .string()
  .min(1)
  .max(200)
  .refine(NO_NUL, { message: "must not contain NUL" })
  .optional()
  .openapi({
    param: { name: "contactId", in: "query" },
    description:
      "Only documents of this contact: the ledger contact id, as `contactId` on rows and `id` " +
      "in /contacts.",
    example: "c0000000-0000-4000-8000-000000000001",
  });

/** `status`: a comma list (or the parameter repeated); unknown values ignored. */
export function statusParam(vocabulary: readonly string[], what: string) {
  return z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({
      param: { name: "status", in: "query" },
      description:
        `Comma-separated ${what} from ${vocabulary.map((s) => `\`${s}\``).join(", ")} (the ` +
        "parameter may also be repeated). Case-insensitive. Unknown values are ignored (the " +
        "spec's rule), never matched literally: `status=PAID,UNPAID` is `status=PAID`, and a " +
        "list with no known value (`status=UNPAID`), like an empty one (`status=`), is no " +
        "status filter at all, so the whole list answers. Check a status against the values " +
        "above before relying on the filter to narrow a sum.",
      example: "AUTHORISED,PAID",
    });
}

/** Adds "dateFrom must not be after dateTo" to a query schema with both dates. */
export function dateOrder(query: { dateFrom?: string | undefined; dateTo?: string | undefined }) {
  return !(query.dateFrom && query.dateTo && query.dateFrom > query.dateTo);
}

/**
 * The query of the lists by issue date (credit notes, purchase orders), which differ only in
 * their `status` parameter (see `statusParam`); totals sum `total`.
 */
export function issueDateListQuery(status: ReturnType<typeof statusParam>) {
  return z
    .object({
      status,
      contactId: contactIdParam,
      dateFrom: dateParam("dateFrom", "Inclusive lower bound on the issue date."),
      dateTo: dateParam(
        "dateTo",
        "Inclusive upper bound on the issue date. Must not be before dateFrom (400 " +
          "`invalid_parameter`, parameter `dateFrom`).",
      ),
      cursor: cursorParam,
      limit: limitParam,
      autoPaginate: autoPaginateParam,
      totals: totalsParam("(byStatus, grandTotal, currency) of `total`"),
    })
    .refine(dateOrder, { message: "dateFrom must not be after dateTo", path: ["dateFrom"] });
}
