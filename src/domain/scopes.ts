/** The spec's scopes, by name. */
export const SCOPES = [
  "READ_BANK",
  "READ_FORECAST",
  "READ_PIPELINE",
  "READ_INVOICES",
  "READ_CONTACTS",
  "READ_SUMMARY",
  "READ_ACCOUNTS",
  "READ_PURCHASE_ORDERS",
  "READ_SENSITIVE",
] as const;
export type Scope = (typeof SCOPES)[number];

/** Partner keys are full access: these seven, with no per-scope choice. */
export const PARTNER_SCOPES: readonly Scope[] = [
  "READ_BANK",
  "READ_FORECAST",
  "READ_PIPELINE",
  "READ_INVOICES",
  "READ_CONTACTS",
  "READ_SUMMARY",
  "READ_SENSITIVE",
];

/** Every scope but READ_SENSITIVE: what the demo key gets. */
export const ALL_BUT_SENSITIVE: readonly Scope[] = SCOPES.filter((s) => s !== "READ_SENSITIVE");

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/**
 * Fail-closed: an unknown required scope, or a granted list holding strings that are not scopes,
 * never matches by accident — only an exact member of the granted list does.
 */
export function hasScope(granted: readonly string[], required: Scope): boolean {
  return isScope(required) && granted.includes(required);
}

/** Parses a comma list such as `READ_BANK,READ_FORECAST`; throws naming the first bad entry. */
export function parseScopeList(text: string): Scope[] {
  const out: Scope[] = [];
  for (const raw of text.split(",")) {
    const s = raw.trim().toUpperCase();
    if (s === "") continue;
    if (!isScope(s)) throw new Error(`unknown scope "${raw.trim()}" (known: ${SCOPES.join(", ")})`);
    if (!out.includes(s)) out.push(s);
  }
  return out;
}
