/**
 * A client's value quoted in an error message: JSON-quoted, and cut to 40 characters (ending
 * "…") so that a response never reflects a long input back.
 */
export function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
