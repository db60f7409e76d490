import type { z } from "@hono/zod-openapi";
import type { CreditNoteLineSchema } from "../../contracts/agent/credit-notes.ts";
import { listAccountLabels } from "../../db/queries/cash-items.ts";
import type { IssuedDocumentQueries } from "../../db/queries/issued-documents.ts";
import {
  type AccountLabels,
  indexAccountLabels,
  isSensitiveAccount,
} from "../../domain/pagination/account-labels.ts";
import { decimalText } from "../../domain/pagination/format.ts";
import { canSeeSensitive, type ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import { hiddenContacts, isHidden } from "./paging.ts";

/** A credit-note or purchase-order line (spec: CreditNoteLine, PurchaseOrderLine). */
export type DocumentLine = z.infer<typeof CreditNoteLineSchema>;

/** A line row as the queries give it. */
type DocumentLineRow = Omit<
  Awaited<ReturnType<IssuedDocumentQueries<unknown, string>["lines"]>>[number],
  "lineNumber"
>;

/**
 * Lines as the drills show them: every field optional, absent when the ledger gave none. With
 * `labels` (a key without READ_SENSITIVE), a line on a sensitive account keeps its place but
 * loses its accountCode, and is counted in `redacted`.
 */
function toDocumentLines(
  rows: readonly DocumentLineRow[],
  labels: AccountLabels | undefined,
): { lines: DocumentLine[]; redacted: number } {
  let redacted = 0;
  const lines = rows.map((r) => {
    const out: DocumentLine = {};
    if (r.description !== null) out.description = r.description;
    if (r.quantity !== null) out.quantity = decimalText(r.quantity);
    if (r.unitAmount !== null) out.unitAmount = decimalText(r.unitAmount);
    if (r.lineAmount !== null) out.lineAmount = decimalText(r.lineAmount);
    if (r.itemCode !== null) out.itemCode = r.itemCode;
    if (r.accountCode !== null) {
      if (labels && isSensitiveAccount(labels, r.accountCode)) redacted += 1;
      else out.accountCode = r.accountCode;
    }
    return out;
  });
  return { lines, redacted };
}

/**
 * The drill of a document listed by issue date (credit note, purchase order): the document named
 * by `ref` (our id, the ledger's id or its number) and its lines. Without READ_SENSITIVE, a
 * document of a sensitive contact is answered exactly as an unknown one (404), and lines on
 * sensitive accounts lose their accountCode (counted in `redacted`). The caller checks the scope.
 *
 * @throws NotFoundError `what`
 */
export async function drillIssuedDocument<
  Row extends { id: string; contactExternalId: string | null },
>(
  ctx: ServiceContext,
  queries: IssuedDocumentQueries<Row, string>,
  ref: string,
  what: string,
): Promise<{ row: Row; lines: DocumentLine[]; redacted: number }> {
  const seeSensitive = canSeeSensitive(ctx);
  // An id PostgreSQL text cannot hold (NUL) or no ledger would issue names nothing.
  if (ref.includes("\u0000") || ref.length > 255) throw new NotFoundError(what);
  const [row, hidden] = await Promise.all([
    queries.find(ctx.db, ctx.org.id, ref),
    hiddenContacts(ctx),
  ]);
  if (!row || isHidden(hidden, row.contactExternalId)) throw new NotFoundError(what);
  const [lineRows, accountRows] = await Promise.all([
    queries.lines(ctx.db, ctx.org.id, row.id),
    seeSensitive ? Promise.resolve([]) : listAccountLabels(ctx.db, ctx.org.id),
  ]);
  const { lines, redacted } = toDocumentLines(
    lineRows,
    seeSensitive ? undefined : indexAccountLabels(accountRows),
  );
  return { row, lines, redacted };
}
