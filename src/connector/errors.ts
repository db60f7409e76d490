/** Where in a ledger export a bad value sits. Every part is optional but the file. */
export interface LedgerFormatLocation {
  /** File (or report) name, e.g. `Invoices.json`. */
  file: string;
  /** Record address, e.g. `Invoices[12]`. */
  record?: string;
  /** The record's own id, e.g. `InvoiceID 8f1e…`. */
  recordId?: string;
  /** Path of the field inside the record, e.g. `LineItems[0].UnitAmount`. */
  field?: string;
}

/**
 * A ledger document that cannot be read. The message names the file, the record (index and id)
 * and the field, so that whoever produced the export can fix it:
 * `Invoices.json: Invoices[12] (InvoiceID 8f1e…): Total: expected a number, got "abc"`.
 */
export class LedgerFormatError extends Error {
  constructor(
    readonly location: LedgerFormatLocation,
    readonly problem: string,
  ) {
    super(formatLocation(location, problem));
    this.name = "LedgerFormatError";
  }
}

function formatLocation(loc: LedgerFormatLocation, problem: string): string {
  let out = `${loc.file}:`;
  if (loc.record) out += ` ${loc.record}${loc.recordId ? ` (${loc.recordId})` : ""}:`;
  if (loc.field) out += ` ${loc.field}:`;
  return `${out} ${problem}`;
}

/** A value shown in an error message: strings quoted, long values cut. */
export function showValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/**
 * `text` with control characters written as `\uXXXX` (a NUL, say, which PostgreSQL's text cannot
 * hold and a terminal would not show), cut to `max` characters with an ellipsis.
 */
export function printable(text: string, max: number): string {
  let out = "";
  for (let i = 0; i < text.length && out.length <= max; i++) {
    const c = text.charCodeAt(i);
    out += c < 0x20 || c === 0x7f ? `\\u${c.toString(16).padStart(4, "0")}` : text[i];
  }
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}
