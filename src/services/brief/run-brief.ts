import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rulesBrief } from "../../domain/brief/rules-generator.ts";
import type { BriefFacts, BriefPayload } from "../../domain/brief/types.ts";
import { validateBrief } from "../../domain/brief/validate.ts";
import { randomToken } from "../../domain/ids.ts";
import { rowsOf } from "../summaries/summary-cache.ts";
import { systemContext } from "../system-context.ts";
import { loadBriefFacts } from "./brief-facts.ts";
import { type BriefRow, type DailyBrief, toDailyBrief } from "./get-daily-brief.ts";
import { type LlmConfig, llmBrief } from "./llm-generator.ts";

/** Subscription states in which a paid plan counts as premium. */
export const PREMIUM_STATUSES = ["trialing", "active", "past_due"] as const;

/**
 * Premium = the organisation's billing account is on a paid plan (Pocket, Wallet, Vault or
 * Reserve; trials run on Wallet) whose subscription is trialing, active or past due. Free plans,
 * canceled or ended subscriptions and organisations without a billing account get the rules tier.
 */
export async function isPremium(db: Db, orgId: string): Promise<boolean> {
  const row = rowsOf<{ plan: string | null; status: string | null }>(
    await db.execute(sql`
      SELECT b.plan, b.subscription_status AS status
      FROM organisations o LEFT JOIN billing_accounts b ON b.id = o.billing_account_id
      WHERE o.id = ${orgId}`),
  )[0];
  return (
    !!row?.plan &&
    row.plan !== "Free" &&
    (PREMIUM_STATUSES as readonly string[]).includes(row.status ?? "")
  );
}

/** A generator of the brief payload; the LLM one may fail or write anything, it is validated. */
export type LlmCall = (facts: BriefFacts, cfg: LlmConfig) => Promise<unknown>;

export interface RunBriefInput {
  orgId: string;
  /** The UTC business day. */
  asOfDate: string;
  now: Date;
  /** The LLM endpoint; null or absent = rules only. */
  llm?: LlmConfig | null;
  /** Regenerate even when the day's row exists (operator command only). */
  replace?: boolean;
  /** For tests: how the LLM is called (default: the HTTP client). */
  llmCall?: LlmCall;
  /** Told why the LLM tier was skipped or rejected (never includes the API key). */
  onFallback?: (reason: string) => void;
}

export interface RunBriefResult {
  brief: DailyBrief;
  /** False when the row already existed (another instance or an earlier run wrote it). */
  created: boolean;
  fallbackReason: string | null;
}

/**
 * Writes the organisation's brief for (orgId, asOfDate), once: an existing row is returned
 * unchanged (unless `replace`), and a concurrent writer's row wins the unique key. Premium
 * organisations get the LLM tier when an endpoint is configured; its output must pass the same
 * validation as the rules tier, and any failure (transport, timeout, JSON, validation) falls
 * back to the rules generator, whose output is stored with tier `rules`.
 */
export async function runBrief(db: Db, input: RunBriefInput): Promise<RunBriefResult> {
  const { orgId, asOfDate } = input;
  if (!input.replace) {
    const existing = await readBriefRow(db, orgId, asOfDate);
    if (existing) return { brief: toDailyBrief(existing), created: false, fallbackReason: null };
  }
  const ctx = await systemContext(db, orgId, input.now);
  const facts = await loadBriefFacts(ctx, asOfDate);

  let payload: BriefPayload | null = null;
  let tier: "rules" | "llm" = "rules";
  let model: string | null = null;
  let fallbackReason: string | null = null;
  if (input.llm && (await isPremium(db, orgId))) {
    try {
      const raw = await (input.llmCall ?? ((f, c) => llmBrief(f, c)))(facts, input.llm);
      const checked = validateBrief(raw, facts);
      if (checked.ok) {
        payload = checked.payload;
        tier = "llm";
        model = input.llm.model;
      } else {
        fallbackReason = `invalid LLM brief: ${checked.errors.slice(0, 5).join("; ")}`;
      }
    } catch (e) {
      fallbackReason = e instanceof Error ? e.message : "LLM call failed";
    }
    if (fallbackReason) input.onFallback?.(fallbackReason);
  }
  if (!payload) {
    const rules = rulesBrief(facts);
    const checked = validateBrief(rules, facts);
    // The rules generator is property-tested against the validator; a failure here is a bug.
    if (!checked.ok) throw new Error(`rules brief failed validation: ${checked.errors.join("; ")}`);
    payload = checked.payload;
  }

  const id = `brf_${randomToken()}`;
  const generatedAt = input.now.toISOString();
  const payloadJson = JSON.stringify(payload);
  const written = rowsOf<BriefRow>(
    await db.execute(
      input.replace
        ? sql`
          INSERT INTO daily_briefs (id, org_id, as_of_date, generated_at, generator_tier, payload, model, fallback_reason)
          VALUES (${id}, ${orgId}, ${asOfDate}, ${generatedAt}, ${tier}, ${payloadJson}::jsonb, ${model}, ${fallbackReason})
          ON CONFLICT (org_id, as_of_date) DO UPDATE SET
            generated_at = excluded.generated_at, generator_tier = excluded.generator_tier,
            payload = excluded.payload, model = excluded.model,
            fallback_reason = excluded.fallback_reason
          RETURNING ${BRIEF_COLUMNS}`
        : sql`
          INSERT INTO daily_briefs (id, org_id, as_of_date, generated_at, generator_tier, payload, model, fallback_reason)
          VALUES (${id}, ${orgId}, ${asOfDate}, ${generatedAt}, ${tier}, ${payloadJson}::jsonb, ${model}, ${fallbackReason})
          ON CONFLICT (org_id, as_of_date) DO NOTHING
          RETURNING ${BRIEF_COLUMNS}`,
    ),
  )[0];
  if (written) return { brief: toDailyBrief(written), created: true, fallbackReason };
  // Another instance wrote the day's row between our check and our insert: theirs stands.
  const theirs = await readBriefRow(db, orgId, asOfDate);
  if (!theirs) throw new Error("daily brief insert conflicted but no row was found");
  return { brief: toDailyBrief(theirs), created: false, fallbackReason: null };
}

const BRIEF_COLUMNS = sql.raw(
  `org_id AS "orgId", as_of_date::text AS "asOfDate", generated_at AS "generatedAt", ` +
    `generator_tier AS "generatorTier", payload`,
);

async function readBriefRow(
  db: Db,
  orgId: string,
  asOfDate: string,
): Promise<BriefRow | undefined> {
  return rowsOf<BriefRow>(
    await db.execute(sql`
      SELECT ${BRIEF_COLUMNS} FROM daily_briefs WHERE org_id = ${orgId} AND as_of_date = ${asOfDate}`),
  )[0];
}
