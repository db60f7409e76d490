/** The range `toISOString` writes with four-digit years (0000-01-01 … 9999-12-31). */
const FIRST_MS = -62_167_219_200_000;
const LAST_MS = 253_402_300_799_999;

/** The last second formatted, `YYYY-MM-DDTHH:MM:SS.` (calls close together share it). */
let memoSecond = Number.NaN;
let memoPrefix = "";

/**
 * `new Date(ms).toISOString()`, without a Date or a full format per call: the text up to the
 * second is kept between calls, so instants within one second (a batch of audit rows or credit
 * uses, written per request on a busy server) only append their milliseconds.
 */
export function isoInstant(ms: number): string {
  if (!(ms >= FIRST_MS && ms <= LAST_MS) || !Number.isInteger(ms)) {
    return new Date(ms).toISOString(); // throws RangeError for NaN, as toISOString does
  }
  const second = Math.floor(ms / 1000);
  if (second !== memoSecond) {
    memoPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    memoSecond = second;
  }
  const milli = ms - second * 1000;
  return `${memoPrefix}${milli < 10 ? "00" : milli < 100 ? "0" : ""}${milli}Z`;
}
