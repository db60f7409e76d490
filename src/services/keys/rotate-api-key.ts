import type { DbOrTx } from "../../db/client.ts";
import { findApiKeyByPrefix, markApiKeyRevoked } from "../../db/queries/api-keys.ts";
import { InvalidParameterError, NotFoundError } from "../errors.ts";
import { type CreatedApiKey, insertNewKey } from "./create-api-key.ts";
import { storedScopes } from "./key-views.ts";

/** The new key, and the prefix of the key it replaced (now revoked). */
export interface RotatedApiKey extends CreatedApiKey {
  replacedPrefix: string;
}

/**
 * Rotates an organisation (`cr_live_`) key: a new active key with the same label, scopes and
 * organisation, and the old key revoked at the same instant with `replacedByKeyId` pointing at
 * the new one. The old secret fails on the very next request (authentication reads the row on
 * every request; nothing is cached). `crun_` keys have no rotate operation (spec): create the
 * replacement, deploy it, then revoke the old key, so that both work during the switch.
 */
export async function rotateApiKey(db: DbOrTx, prefix: string, now: Date): Promise<RotatedApiKey> {
  return db.transaction(async (tx) => {
    const old = await findApiKeyByPrefix(tx, prefix);
    if (!old) throw new NotFoundError(`key ${prefix}`);
    if (old.family !== "cr_live") {
      throw new InvalidParameterError(
        "prefix",
        `key ${prefix} is a crun_ ${old.kind} key: these have no rotate operation. Create the ` +
          "replacement (same scopes), deploy and check it, then revoke the old key.",
      );
    }
    if (old.revokedAt)
      throw new InvalidParameterError("prefix", `key ${prefix} is already revoked`);
    const created = await insertNewKey(
      tx,
      {
        kind: old.kind,
        label: old.label,
        scopes: storedScopes(old),
        reach: old.reach,
        orgId: old.orgId,
        partnerId: old.partnerId,
        pinnedOrgIds: old.pinnedOrgIds,
        createdByUserId: old.createdByUserId,
      },
      now,
    );
    // Guarded by `revoked_at is null`: of two concurrent rotations, one rolls back here.
    const revoked = await markApiKeyRevoked(tx, prefix, now, created.id);
    if (!revoked) throw new InvalidParameterError("prefix", `key ${prefix} is already revoked`);
    return { ...created, replacedPrefix: prefix };
  });
}
