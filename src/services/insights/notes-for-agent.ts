import { sql } from "drizzle-orm";
import { boundedCache } from "../../cache.ts";
import type { DbOrTx } from "../../db/client.ts";
import type { AgentNote, DetectedNote } from "../../domain/insights/detectors.ts";
import { detectNotes } from "../../domain/insights/engine.ts";
import { localDate } from "../../domain/timezones.ts";
import { canSeeSensitive, type ServiceContext } from "../context.ts";
import { dataVersion, rowsOf } from "../summaries/summary-cache.ts";
import { loadInsightInput } from "./load-insight-input.ts";

/** Stored insights older than this are not served; the fallback detectors run instead. */
export const STORED_NOTES_MAX_AGE_MS = 36 * 3600 * 1000;

/** Runs the detectors for an organisation now (insight engine and fallback share them). */
export async function detectOrgNotes(
  db: DbOrTx,
  org: { id: string; baseCurrency: string; timezone: string },
  now: Date,
): Promise<DetectedNote[]> {
  const today = localDate(now, org.timezone);
  return detectNotes(await loadInsightInput(db, org, today));
}

/**
 * Fallback notes computed on a request, kept per (organisation, local date, data version) so
 * that one organisation's detectors run once a day per process, not on every call. Bounded
 * (src/cache.ts, `agentNotes`).
 */
const fallbackMemo = boundedCache<string, Promise<DetectedNote[]>>("agentNotes");

async function fallbackNotes(ctx: ServiceContext): Promise<DetectedNote[]> {
  const version = await dataVersion(ctx.db, ctx.org.id);
  const key = `${ctx.org.id}|${localDate(ctx.now, ctx.org.timezone)}|${version ?? "none"}`;
  // Without a data version (no import) the rows may change under us: never reuse.
  if (version !== null) {
    const hit = fallbackMemo.get(key);
    if (hit) return hit;
  }
  const pending = detectOrgNotes(ctx.db, ctx.org, ctx.now);
  if (version !== null) {
    fallbackMemo.set(key, pending);
    pending.catch(() => fallbackMemo.delete(key));
  }
  return pending;
}

/** Ids of the given contacts that are flagged sensitive now. */
async function sensitiveAmong(
  db: DbOrTx,
  orgId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = rowsOf<{ id: string }>(
    await db.execute(sql`
      SELECT external_id AS id FROM contacts
      WHERE org_id = ${orgId} AND is_sensitive
        AND external_id IN (${sql.join(
          ids.map((i) => sql`${i}`),
          sql`, `,
        )})`),
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * `notesForAgent` of the cash-position, forecast, daily-summary and cohort-summary responses: at
 * most 3 notes ranked by impact. The insight engine's notes (stored by the latest baseline run,
 * when it ran within 36 hours) carry `sourceInsightId`; otherwise the same detectors run now as
 * the fallback and their notes carry none. A note naming a contact that is sensitive now says
 * "Sensitive contact" instead for keys without READ_SENSITIVE (and with `redact`, for anyone:
 * the daily brief, which every key of the organisation reads).
 */
export async function notesForAgent(
  ctx: ServiceContext,
  opts: { redact?: boolean } = {},
): Promise<AgentNote[]> {
  const orgId = ctx.org.id;
  const run = rowsOf<{ computedAt: Date | string }>(
    await ctx.db.execute(
      sql`SELECT computed_at AS "computedAt" FROM org_baselines WHERE org_id = ${orgId}`,
    ),
  )[0];
  const ranAt = run ? new Date(run.computedAt).getTime() : null;
  let notes: (DetectedNote & { id?: string })[];
  if (ranAt !== null && ctx.now.getTime() - ranAt <= STORED_NOTES_MAX_AGE_MS) {
    const stored = rowsOf<{
      id: string;
      kind: DetectedNote["kind"];
      window: DetectedNote["window"];
      severity: DetectedNote["severity"];
      text: string;
      impact: string;
      subject: string | null;
      redacted: string | null;
    }>(
      await ctx.db.execute(sql`
        SELECT id, kind, "window", severity, text, impact::text AS impact,
               subject_contact_id AS subject, redacted_text AS redacted
        FROM org_insights WHERE org_id = ${orgId} ORDER BY rank, id LIMIT 3`),
    );
    notes = stored.map((s) => ({
      id: s.id,
      kind: s.kind,
      window: s.window,
      severity: s.severity,
      text: s.text,
      impact: Number(s.impact),
      ...(s.subject ? { subjectContactId: s.subject } : {}),
      ...(s.redacted ? { redactedText: s.redacted } : {}),
    }));
  } else {
    notes = await fallbackNotes(ctx);
  }
  const subjects =
    canSeeSensitive(ctx) && !opts.redact
      ? new Set<string>()
      : await sensitiveAmong(
          ctx.db,
          orgId,
          notes.flatMap((n) => (n.subjectContactId ? [n.subjectContactId] : [])),
        );
  return notes.slice(0, 3).map((n) => ({
    kind: n.kind,
    window: n.window,
    severity: n.severity,
    text:
      n.subjectContactId && subjects.has(n.subjectContactId)
        ? (n.redactedText ?? "A note about a sensitive contact was withheld.")
        : n.text,
    ...(n.id ? { sourceInsightId: n.id } : {}),
  }));
}

/**
 * `body` with `notesForAgent` when there are notes (the field is optional in the spec, so an
 * answer without notes stays exactly as it was). Used by the cash-position and forecast routes.
 */
export async function withNotes<B extends object>(
  ctx: ServiceContext,
  body: B,
): Promise<B & { notesForAgent?: AgentNote[] }> {
  const notes = await notesForAgent(ctx);
  return notes.length > 0 ? { ...body, notesForAgent: notes } : body;
}
