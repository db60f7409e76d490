import { MAX_AMOUNT } from "../domain/forecasting/cents.ts";
import { canonical, money } from "../domain/money.ts";

/**
 * Parses JSON text keeping every number exactly as written: each number literal becomes a string
 * holding its digits (`0.1` → `"0.1"`, `12345678901234567.89` stays whole), so money never passes
 * through a float. Strings, booleans and null are untouched.
 *
 * Why not lossless-json: on a 110 MB Invoices.json it takes ~4.7 s, whereas quoting the numbers
 * with this scanner and handing the text to the native `JSON.parse` takes ~1.8 s. The scanner only
 * has to tell strings from the rest: it jumps over strings with `indexOf('"')` (checking for
 * escaped quotes) and wraps each run of number characters found outside strings in quotes.
 * Structure errors are left to `JSON.parse`: a run of number characters that is not a JSON number
 * (`0012`, `12.`, `1e`, `--1`) is left unquoted, so `JSON.parse` refuses it at its position.
 *
 * @throws SyntaxError for invalid JSON (with the position in the original text).
 */
export function parseJsonKeepingNumbers(text: string): unknown {
  const quoted = quoteNumbers(text);
  try {
    return JSON.parse(quoted);
  } catch (e) {
    // Positions in the quoted text are shifted; parse the original to report the real one.
    JSON.parse(text);
    throw e;
  }
}

/** The JSON grammar's number. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** `text` with every number literal outside strings wrapped in double quotes. */
export function quoteNumbers(text: string): string {
  const parts: string[] = [];
  const n = text.length;
  let last = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j === -1) throw new SyntaxError(`Unterminated string in JSON at position ${i}`);
        let backslashes = 0;
        for (let k = j - 1; text.charCodeAt(k) === 92 /* \ */; k--) backslashes++;
        if ((backslashes & 1) === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j + 1;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      let j = i + 1;
      while (j < n) {
        const d = text.charCodeAt(j);
        // digits . e E + -
        if ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) j++;
        else break;
      }
      const literal = text.slice(i, j);
      if (JSON_NUMBER.test(literal)) {
        parts.push(text.slice(last, i), '"', literal, '"');
        last = j;
      }
      i = j;
    } else i++;
  }
  if (last === 0) return text;
  parts.push(text.slice(last));
  return parts.join("");
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The largest magnitude a ledger decimal may have: (2^53 − 1) cents, the range in which the
 * forecast engine's integer-cent arithmetic is exact (src/domain/forecasting/cents.ts). Beyond
 * it an imported amount would stop the forecast; no small business's ledger comes near it.
 */
export const LEDGER_DECIMAL_LIMIT = MAX_AMOUNT;
/** The most decimal places a ledger decimal may have (the ledger itself uses at most 4). */
export const LEDGER_DECIMAL_PLACES = 20;
/** How `parseDecimal`'s bounds read in an error message. */
export const LEDGER_DECIMAL_TEXT = `a number within ±${LEDGER_DECIMAL_LIMIT} with at most ${LEDGER_DECIMAL_PLACES} decimals`;

/**
 * The canonical decimal string of a ledger money value given as a JSON number (already a string
 * after `parseJsonKeepingNumbers`), a numeric string (`"50.00"`, as some Xero payloads send), or
 * a JS number from another source. Returns undefined when the value is not a decimal, or is
 * outside `LEDGER_DECIMAL_LIMIT` or `LEDGER_DECIMAL_PLACES` (checked before the value is written
 * out in full: `1e1000000000` would be a billion digits).
 */
export function parseDecimal(value: unknown): string | undefined {
  let s: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return undefined;
    s = String(value);
  } else if (typeof value === "string") {
    s = value.trim();
    if (!DECIMAL.test(s)) return undefined;
    if (s.startsWith("+")) s = s.slice(1);
  } else return undefined;
  const d = money(s);
  if (d.abs().gt(LEDGER_DECIMAL_LIMIT) || d.decimalPlaces() > LEDGER_DECIMAL_PLACES) {
    return undefined;
  }
  return canonical(d);
}
