import { and, eq, or } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { afterDataEpoch } from "../../db/queries/data-epochs.ts";
import { contacts, ledgerAccounts } from "../../db/schema/index.ts";
import { quoted } from "../../domain/quoted.ts";
import { NotFoundError } from "../errors.ts";

export type SensitiveTarget = { account: string } | { contact: string };

/**
 * Flags a ledger account (by code, our id or the ledger's AccountID) or a contact (our id or the
 * ledger's ContactID) sensitive, or clears the flag. The flag belongs to the service: imports
 * never touch it. The change shows in the very next API response.
 */
export async function setSensitive(
  db: DbOrTx,
  input: { orgId: string; target: SensitiveTarget; sensitive: boolean },
): Promise<{
  kind: "account" | "contact";
  id: string;
  externalId: string;
  name: string;
  isSensitive: boolean;
}> {
  if ("account" in input.target) {
    const ref = input.target.account;
    const rows = await afterDataEpoch(db, input.orgId, (tx) =>
      tx
        .update(ledgerAccounts)
        .set({ isSensitive: input.sensitive })
        .where(
          and(
            eq(ledgerAccounts.orgId, input.orgId),
            or(
              eq(ledgerAccounts.code, ref),
              eq(ledgerAccounts.id, ref),
              eq(ledgerAccounts.externalId, ref),
            ),
          ),
        )
        .returning(),
    );
    const row = rows[0];
    if (!row) throw new NotFoundError(`ledger account ${quoted(ref)}`);
    return {
      kind: "account",
      id: row.id,
      externalId: row.externalId,
      name: row.name,
      isSensitive: row.isSensitive,
    };
  }
  const ref = input.target.contact;
  const rows = await afterDataEpoch(db, input.orgId, (tx) =>
    tx
      .update(contacts)
      .set({ isSensitive: input.sensitive })
      .where(
        and(
          eq(contacts.orgId, input.orgId),
          or(eq(contacts.id, ref), eq(contacts.externalId, ref)),
        ),
      )
      .returning(),
  );
  const row = rows[0];
  if (!row) throw new NotFoundError(`contact ${quoted(ref)}`);
  return {
    kind: "contact",
    id: row.id,
    externalId: row.externalId,
    name: row.name,
    isSensitive: row.isSensitive,
  };
}
