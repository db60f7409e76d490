import { LedgerFormatError, showValue } from "../../connector/errors.ts";
import { LEDGER_DECIMAL_TEXT, parseDecimal } from "../../connector/json-numbers.ts";
import type { XeroReport, XeroReportRow } from "../../connector/ledger-source.ts";
import { isCalendarDate } from "../../domain/forecasting/dates.ts";

/** One account's balance as at one date, as a balance-sheet report gave it. */
export interface BalanceSheetRow {
  asAtDate: string;
  accountExternalId: string;
  name: string;
  section: string | null;
  balance: string;
}

const LABEL = "BalanceSheet report";
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/**
 * A report column's date: the ledger's header text (`30 Apr 2019`, `30 April 2019`) or ISO
 * (`2019-04-30`); null when the text is not a date.
 */
export function columnDate(text: string | undefined): string | null {
  const t = (text ?? "").trim();
  if (isCalendarDate(t)) return t;
  const m = /^(\d{1,2})\s+([A-Za-z]{3,9})\.?\s+(\d{4})$/.exec(t);
  if (!m) return null;
  const month = MONTHS.indexOf((m[2] ?? "").slice(0, 3).toLowerCase());
  if (month < 0) return null;
  const iso = `${m[3]}-${String(month + 1).padStart(2, "0")}-${(m[1] ?? "").padStart(2, "0")}`;
  return isCalendarDate(iso) ? iso : null;
}

/**
 * The balances of balance-sheet reports in the ledger's layout (ReportWithRows): the Header row
 * names each value column's date; every `Row` whose first cell carries the attribute `account`
 * (the AccountID; the zero GUID for Current Year Earnings) gives one balance per column, as the
 * balance sheet shows it. Summary rows and rows without an account are skipped. A date and
 * account given twice is an error: the export would be ambiguous.
 */
export function balanceSheetRows(reports: readonly XeroReport[]): BalanceSheetRow[] {
  const out: BalanceSheetRow[] = [];
  const seen = new Set<string>();
  reports.forEach((report, index) => {
    const record = `Reports[${index}]`;
    const header = report.Rows.find((r) => r.RowType === "Header");
    const cells = header?.Cells ?? [];
    const dates: (string | null)[] = cells.slice(1).map((c) => columnDate(c.Value));
    if (dates.length === 0) {
      throw new LedgerFormatError({ file: LABEL, record }, "no Header row naming the column dates");
    }
    dates.forEach((d, i) => {
      if (d === null) {
        throw new LedgerFormatError(
          { file: LABEL, record, field: `Header.Cells[${i + 1}]` },
          `expected a date such as "30 Apr 2019", got ${showValue(cells[i + 1]?.Value)}`,
        );
      }
    });
    const visit = (rows: readonly XeroReportRow[], section: string | null) => {
      for (const row of rows) {
        if (row.RowType === "Section") {
          visit(row.Rows ?? [], row.Title?.trim() ? row.Title.trim() : section);
          continue;
        }
        if (row.RowType !== "Row" || !row.Cells) continue;
        const first = row.Cells[0];
        const accountId = first?.Attributes?.find((a) => a.Id.toLowerCase() === "account")?.Value;
        if (!accountId) continue;
        dates.forEach((date, i) => {
          const raw = row.Cells?.[i + 1]?.Value ?? "";
          const cleaned = raw.replace(/[,\s]/g, "");
          const balance = cleaned === "" ? "0" : parseDecimal(cleaned);
          if (balance === undefined) {
            throw new LedgerFormatError(
              {
                file: LABEL,
                record: `${record} row "${first?.Value ?? ""}"`,
                recordId: `account ${accountId}`,
                field: date ?? "",
              },
              `expected ${LEDGER_DECIMAL_TEXT}, got ${showValue(raw)}`,
            );
          }
          const key = `${date}|${accountId}`;
          if (seen.has(key)) {
            throw new LedgerFormatError(
              { file: LABEL, record, recordId: `account ${accountId}` },
              `${date} is given twice for this account`,
            );
          }
          seen.add(key);
          out.push({
            asAtDate: date as string,
            accountExternalId: accountId,
            name: first?.Value ?? "",
            section,
            balance,
          });
        });
      }
    };
    visit(report.Rows, null);
  });
  return out;
}
