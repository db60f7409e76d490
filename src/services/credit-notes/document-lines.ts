import { type AccountLabels, isSensitiveAccount } from "../../domain/pagination/account-labels.ts";
import { decimalText } from "../../domain/pagination/format.ts";

/** A credit-note or purchase-order line (spec: CreditNoteLine, PurchaseOrderLine). */
export interface DocumentLine {
  description?: string;
  quantity?: string;
  unitAmount?: string;
  lineAmount?: string;
  itemCode?: string;
  accountCode?: string;
}

/** A line row as the queries give it. */
export interface DocumentLineRow {
  description: string | null;
  quantity: string | null;
  unitAmount: string | null;
  lineAmount: string | null;
  itemCode: string | null;
  accountCode: string | null;
}

/**
 * Lines as the drills show them: every field optional, absent when the ledger gave none. With
 * `labels` (a key without READ_SENSITIVE), a line on a sensitive account keeps its place but
 * loses its accountCode, and is counted in `redacted`.
 */
export function toDocumentLines(
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
