import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import { auditEvents } from "../../db/schema/index.ts";
import { InvalidParameterError } from "../errors.ts";

/** One agent request of a key, as the audit screen shows it. */
export interface AuditEventView {
  id: number;
  at: string;
  method: string;
  /** The flat route template, never the raw URL. */
  route: string;
  status: number;
  /** Why a key whose secret matched was refused (e.g. `creator_not_partner_owner`), or null. */
  reason: string | null;
  /** True when the key held READ_SENSITIVE for this request. */
  sensitive: boolean;
  /** The organisation the request read, when one was resolved. */
  orgId: string | null;
  requestId: string;
}

/** One page of a key's audit trail. */
export interface AuditEventPage {
  events: AuditEventView[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** Rows per page unless asked otherwise, and the most a page may hold. */
export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

/** The cursor is the position of the last row shown: its instant and id, base64url. */
function encodeCursor(at: Date, id: number): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString("base64url");
}

function decodeCursor(cursor: string): { at: string; id: number } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const [at, id] = text.split("|");
  const n = Number(id);
  if (!at || Number.isNaN(Date.parse(at)) || !Number.isSafeInteger(n) || n < 0) {
    throw new InvalidParameterError("cursor", "cursor: not a value this listing gave");
  }
  return { at: new Date(at).toISOString(), id: n };
}

/**
 * A key's audit rows, newest first (by time, then id), one page at a time with a keyset cursor,
 * so a page costs the same however deep it is and new requests never shift later pages. The
 * caller decides who may read the key's trail; this verb only reads it.
 */
export async function listAuditEvents(
  db: DbOrTx,
  input: { keyId: string; cursor?: string | undefined; limit?: number | undefined },
): Promise<AuditEventPage> {
  const limit = Math.min(
    Math.max(Math.trunc(input.limit ?? AUDIT_PAGE_DEFAULT), 1),
    AUDIT_PAGE_MAX,
  );
  const after = input.cursor ? decodeCursor(input.cursor) : undefined;
  const rows = await db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.keyId, input.keyId),
        after
          ? sql`(${auditEvents.at}, ${auditEvents.id}) < (${after.at}::timestamptz, ${after.id})`
          : undefined,
      ),
    )
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    events: page.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      method: r.method,
      route: r.route,
      status: r.status,
      reason: r.reason,
      sensitive: r.sensitive,
      orgId: r.orgId,
      requestId: r.requestId,
    })),
    nextCursor: rows.length > limit && last ? encodeCursor(last.at, last.id) : null,
  };
}
