/** A column: its heading, how to get the cell from a row, and whether it is a number. */
export interface Column<R> {
  heading: string;
  cell: (row: R) => unknown;
  /** Right-aligned (amounts and counts). */
  numeric?: boolean;
}

const text = (v: unknown): string => (v === undefined || v === null ? "" : String(v));

/**
 * A plain-text table: a heading row, a rule, then one line per row, columns padded to their
 * widest cell (amounts right-aligned, so decimal strings line up by their integer part).
 */
export function table<R>(rows: readonly R[], columns: readonly Column<R>[]): string {
  const cells = rows.map((row) => columns.map((c) => text(c.cell(row)).replace(/\s+/g, " ")));
  const widths = columns.map((c, i) =>
    Math.max(c.heading.length, ...cells.map((r) => (r[i] as string).length)),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i]?.numeric ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [
    line(columns.map((c) => c.heading)),
    line(widths.map((w) => "-".repeat(w))),
    ...cells.map(line),
  ].join("\n");
}

/** `label: value` lines, labels padded to the widest. */
export function fields(pairs: readonly [string, unknown][]): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== "");
  const width = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${text(v)}`).join("\n");
}
