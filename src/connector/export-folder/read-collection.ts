import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { z } from "zod";
import { LedgerFormatError, printable, showValue } from "../errors.ts";
import { parseJsonKeepingNumbers } from "../json-numbers.ts";

/** How one collection is laid out in the folder. */
export interface CollectionFile {
  /** Path inside the folder, e.g. `Invoices.json` or `Reports/BankSummary.json`. */
  file: string;
  /** The envelope's array key, e.g. `Invoices`. */
  key: string;
  /** The record's id field, named in errors and checked for duplicates, e.g. `InvoiceID`. */
  idField?: string;
  /** A missing required file is an error; a missing optional one is an empty collection. */
  required: boolean;
}

/**
 * Reads a collection file's envelope: `{ "<key>": [ … ] }` with numbers kept as digit strings.
 * Returns null when an optional file is missing.
 */
export async function readEnvelope(
  folder: string,
  spec: CollectionFile,
): Promise<unknown[] | null> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(folder, spec.file));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      if (!spec.required) return null;
      throw new LedgerFormatError({ file: spec.file }, `required file is missing from ${folder}`);
    }
    throw new LedgerFormatError({ file: spec.file }, `cannot be read: ${(e as Error).message}`);
  }
  const text = decodeUtf8(spec.file, bytes);
  let body: unknown;
  try {
    body = parseJsonKeepingNumbers(text);
  } catch (e) {
    throw new LedgerFormatError(
      { file: spec.file },
      `invalid JSON: ${printable((e as Error).message, 300)}`,
    );
  }
  const records =
    typeof body === "object" && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)[spec.key]
      : undefined;
  if (!Array.isArray(records)) {
    throw new LedgerFormatError(
      { file: spec.file },
      `expected an object holding the "${spec.key}" array (the ledger API's envelope)`,
    );
  }
  return records;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The file's text. JSON exchanged between systems is UTF-8 (RFC 8259): a UTF-16 file or bytes
 * that are not UTF-8 (a Latin-1 "Café") are refused rather than read as replacement characters.
 * A UTF-8 byte-order mark, which some exporters write, is dropped.
 */
function decodeUtf8(file: string, bytes: Buffer): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new LedgerFormatError({ file }, "is UTF-16; the export must be UTF-8");
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    // Where: decoded again in 4 KiB steps, so the message can say which ones hold the fault.
    const stepper = new TextDecoder("utf-8", { fatal: true });
    let at = 0;
    try {
      for (; at < bytes.length; at += 4096) {
        stepper.decode(bytes.subarray(at, at + 4096), { stream: true });
      }
    } catch {}
    const where =
      at < bytes.length
        ? `bytes ${at}–${Math.min(at + 4096, bytes.length) - 1}`
        : "its last character, which is cut short";
    throw new LedgerFormatError(
      { file },
      `is not valid UTF-8 (the fault is in ${where}); the export must be UTF-8`,
    );
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `["LineItems", 0, "UnitAmount"]` → `LineItems[0].UnitAmount`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

function valueAt(record: unknown, path: readonly PropertyKey[]): unknown {
  let v = record;
  for (const part of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

/** One sentence for a zod issue; our own schemas already phrase theirs. */
function describeIssue(issue: z.core.$ZodIssue, record: unknown): string {
  if (issue.code === "custom") return issue.message;
  const value = valueAt(record, issue.path);
  if (value === undefined || value === null) return "required";
  if (issue.code === "invalid_type") {
    const expected = issue.expected === "object" ? "an object" : issue.expected;
    return `expected ${expected === "array" ? "an array" : expected}, got ${showValue(value)}`;
  }
  if (issue.code === "invalid_value") {
    return `expected one of ${issue.values.map(String).join(", ")}, got ${showValue(value)}`;
  }
  return `${issue.message}, got ${showValue(value)}`;
}

/**
 * Validates records one by one with `schema` and yields them in pages. The first bad record
 * stops the read with a LedgerFormatError naming file, record index, record id and field.
 * Consumes `records`: each raw record is dropped once validated, so that a large file's raw and
 * validated forms are not both held in memory.
 */
export function* validateRecords<S extends z.ZodType>(
  spec: CollectionFile,
  records: unknown[],
  schema: S,
  pageSize: number,
): Generator<z.output<S>[]> {
  const seen = spec.idField ? new Map<string, number>() : undefined;
  let page: z.output<S>[] = [];
  for (let i = 0; i < records.length; i++) {
    const raw = records[i];
    const rawId =
      spec.idField && typeof raw === "object" && raw !== null
        ? (raw as Record<string, unknown>)[spec.idField]
        : undefined;
    const location = {
      file: spec.file,
      record: `${spec.key}[${i}]`,
      recordId:
        typeof rawId === "string" && rawId !== ""
          ? `${spec.idField} ${rawId.length > 60 ? `${rawId.slice(0, 57)}…` : rawId}`
          : undefined,
    };
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new LedgerFormatError(location, `expected an object, got ${showValue(raw)}`);
    }
    const result = schema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new LedgerFormatError(
        { ...location, field: issue && issue.path.length > 0 ? formatPath(issue.path) : undefined },
        issue ? describeIssue(issue, raw) : "invalid record",
      );
    }
    if (seen && typeof rawId === "string") {
      const first = seen.get(rawId);
      if (first !== undefined) {
        throw new LedgerFormatError(
          location,
          `duplicate ${spec.idField}: ${spec.key}[${first}] has the same id`,
        );
      }
      seen.set(rawId, i);
    }
    records[i] = undefined;
    page.push(result.data);
    if (page.length >= pageSize) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}
