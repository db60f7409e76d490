import { sql } from "drizzle-orm";
import type { DbOrTx } from "../../db/client.ts";
import type { BriefPayload } from "../../domain/brief/types.ts";
import { withholdSensitive } from "../../domain/brief/withhold.ts";
import type { ServiceContext } from "../context.ts";
import { ServiceError } from "../errors.ts";
import { rowsOf } from "../summaries/summary-cache.ts";
import { sensitiveNames } from "./brief-facts.ts";

/** Spec: DailyBriefResponse (alerts are the pipeline's). */
export interface DailyBrief {
  orgId: string;
  asOfDate: string;
  generatedAt: string;
  generatorTier: "rules" | "llm";
  payload: BriefPayload;
}

/** A daily_briefs row as the queries select it. */
export interface BriefRow {
  orgId: string;
  asOfDate: string;
  generatedAt: Date | string;
  generatorTier: "rules" | "llm";
  payload: BriefPayload | string;
}

export function toDailyBrief(r: BriefRow): DailyBrief {
  return {
    orgId: r.orgId,
    asOfDate: r.asOfDate,
    generatedAt: (r.generatedAt instanceof Date
      ? r.generatedAt
      : new Date(r.generatedAt)
    ).toISOString(),
    generatorTier: r.generatorTier,
    payload: typeof r.payload === "string" ? (JSON.parse(r.payload) as BriefPayload) : r.payload,
  };
}

/**
 * The organisation's latest brief (the row the dashboard shows and the API serves), or null
 * before the first one.
 */
export async function getLatestBrief(db: DbOrTx, orgId: string): Promise<DailyBrief | null> {
  const row = rowsOf<BriefRow>(
    await db.execute(sql`
      SELECT org_id AS "orgId", as_of_date::text AS "asOfDate", generated_at AS "generatedAt",
             generator_tier AS "generatorTier", payload
      FROM daily_briefs WHERE org_id = ${orgId}
      ORDER BY as_of_date DESC LIMIT 1`),
  )[0];
  return row ? toDailyBrief(row) : null;
}

/**
 * `GET /api/agent/orgs/{orgId}/daily-brief`: the latest stored brief; 404 `no_brief_yet` before
 * the first. The pipeline has already refused (403) an `{orgId}` other than the organisation
 * the key resolves to; the check is repeated here so the verb holds on its own.
 */
export async function getDailyBrief(ctx: ServiceContext, pathOrgId: string): Promise<DailyBrief> {
  if (pathOrgId !== ctx.org.id) {
    throw new ServiceError("forbidden", "orgId is not the organisation this key resolves to.");
  }
  const brief = await getLatestBrief(ctx.db, ctx.org.id);
  if (!brief) {
    throw new ServiceError(
      "no_brief_yet",
      "No daily brief has been generated for this organisation yet; retry after the next 06:00 UTC run.",
    );
  }
  // Names flagged sensitive after the brief was written are not shown (docs/insights.md).
  const names = (await sensitiveNames(ctx.db, ctx.org.id)).map((n) => n.name);
  return { ...brief, payload: withholdSensitive(brief.payload, names) };
}
