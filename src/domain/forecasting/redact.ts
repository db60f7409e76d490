/** The name sensitive accounts and contacts get in composite responses (spec). */
export const SENSITIVE_ACCOUNT_NAME = "Sensitive account";

/** The part of a week redaction touches. */
interface RedactableWeek {
  categories?: { accounts: Record<string, { name: string }> } | undefined;
}

/**
 * Renames the sensitive accounts of `weeks[].categories.accounts` to "Sensitive account" and
 * counts one per (week, account) pair. Nothing else changes: amounts, ids and the trajectory are
 * never masked. Weeks without a sensitive account are returned as they are (not copied).
 */
export function redactWeeks<W extends RedactableWeek>(
  weeks: readonly W[],
  sensitiveAccountIds: ReadonlySet<string>,
): { weeks: W[]; redactedItemCount: number } {
  let redactedItemCount = 0;
  if (sensitiveAccountIds.size === 0) return { weeks: [...weeks], redactedItemCount };
  const out = weeks.map((w) => {
    const categories = w.categories;
    if (!categories) return w;
    let accounts: Record<string, { name: string }> | undefined;
    for (const [id, entry] of Object.entries(categories.accounts)) {
      if (!sensitiveAccountIds.has(id)) continue;
      accounts ??= { ...categories.accounts };
      accounts[id] = { ...entry, name: SENSITIVE_ACCOUNT_NAME };
      redactedItemCount += 1;
    }
    return accounts ? { ...w, categories: { ...categories, accounts } } : w;
  });
  return { weeks: out, redactedItemCount };
}
