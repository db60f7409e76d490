/** What a line's account looks like to a reader: its name, and whether it is sensitive. */
export interface AccountLabel {
  name: string;
  isSensitive: boolean;
}

/** The name a line gets when it names no account, or one the chart does not have. */
export const UNCATEGORISED = "Uncategorised";
/** The name shown in place of a sensitive account's name (spec: Sensitive-data gating). */
export const SENSITIVE_ACCOUNT = "Sensitive account";

/** Account lookups by code and by the ledger's AccountID. */
export interface AccountLabels {
  byCode: ReadonlyMap<string, AccountLabel>;
  byExternalId: ReadonlyMap<string, AccountLabel>;
}

/**
 * Indexes a chart of accounts. Codes are unique among a ledger's live accounts, but an archived
 * or deleted account may share one: the name is then the ACTIVE account's (else the first by
 * the input order), and the code counts as sensitive when any account holding it is (fail
 * closed).
 */
export function indexAccountLabels(
  rows: readonly {
    code: string | null;
    externalId: string;
    name: string;
    status: string;
    isSensitive: boolean;
  }[],
): AccountLabels {
  const byCode = new Map<string, AccountLabel & { active: boolean }>();
  const byExternalId = new Map<string, AccountLabel>();
  for (const row of rows) {
    byExternalId.set(row.externalId, { name: row.name, isSensitive: row.isSensitive });
    if (!row.code) continue;
    const active = row.status === "ACTIVE";
    const seen = byCode.get(row.code);
    if (!seen) {
      byCode.set(row.code, { name: row.name, isSensitive: row.isSensitive, active });
      continue;
    }
    seen.isSensitive ||= row.isSensitive;
    if (active && !seen.active) {
      seen.name = row.name;
      seen.active = true;
    }
  }
  return { byCode, byExternalId };
}

/** The account a line (or an invoice's category) names: by code first, then by AccountID. */
export function accountOf(
  labels: AccountLabels,
  code: string | null | undefined,
  externalId?: string | null,
): AccountLabel | undefined {
  return (
    (code ? labels.byCode.get(code) : undefined) ??
    (externalId ? labels.byExternalId.get(externalId) : undefined)
  );
}

/**
 * True when a line's account is sensitive. A line naming a code and an AccountID that resolve to
 * different accounts is sensitive if either is.
 */
export function isSensitiveAccount(
  labels: AccountLabels,
  code: string | null | undefined,
  externalId?: string | null,
): boolean {
  return (
    (code ? labels.byCode.get(code)?.isSensitive === true : false) ||
    (externalId ? labels.byExternalId.get(externalId)?.isSensitive === true : false)
  );
}
