import type { Config } from "../../config.ts";
import type { BriefFacts } from "../../domain/brief/types.ts";
import { BRIEF_RULES } from "../../domain/brief/validate.ts";

/** An OpenAI-compatible chat-completions endpoint (CASHRUNWAY_LLM_*). */
export interface LlmConfig {
  /** Base URL (`…/v1`) or the full `…/chat/completions` URL. */
  url: string;
  model: string;
  /** Sent as a bearer token; never logged or stored. */
  apiKey?: string | undefined;
  timeoutMs: number;
}

/** The default whole-exchange timeout of the LLM call. */
export const LLM_TIMEOUT_MS = 20_000;

/** The LLM settings when an endpoint and a model are configured, else null (rules only). */
export function llmConfigFrom(config: Config): LlmConfig | null {
  if (!config.CASHRUNWAY_LLM_URL || !config.CASHRUNWAY_LLM_MODEL) return null;
  return {
    url: config.CASHRUNWAY_LLM_URL,
    model: config.CASHRUNWAY_LLM_MODEL,
    apiKey: config.CASHRUNWAY_LLM_API_KEY,
    timeoutMs: config.CASHRUNWAY_LLM_TIMEOUT_MS ?? LLM_TIMEOUT_MS,
  };
}

export function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/chat/completions") ? trimmed : `${trimmed}/chat/completions`;
}

const SYSTEM_PROMPT = [
  "You write a cash-flow daily brief for a small business owner, as JSON only.",
  'Answer with one JSON object: {"mainDriver": S, "riskSignal": S, "recommendedAction": S},',
  'where each S is {"headline": string, "bodyMarkdown": string, "refs": [R]}.',
  "mainDriver: what shapes the inflow side. riskSignal: the weakest forecast week or the",
  "biggest risk. recommendedAction: one concrete move for this week.",
  `Headlines: at most ${BRIEF_RULES.headlineMax} characters, plain text, no markdown characters.`,
  "Bodies: one or two short sentences; only **bold** and *italic* markdown; no lists, links,",
  "headings or code.",
  'Each R is {"kind": "customer", "key": K, "displayName": N}, {"kind": "category", "key": K,',
  '"displayName": N} or {"kind": "week", "weekNumber": 1-13}. Use only customer and category',
  "keys from the facts, and only week numbers of the forecast. At most 5 refs per section.",
  "Use only the facts given; amounts are in the facts' currency.",
].join("\n");

/** Thrown for any failure of the LLM tier; the caller falls back to the rules. */
export class LlmBriefError extends Error {}

/**
 * Asks the endpoint for a brief written from `facts` (which hold no sensitive names) and returns
 * the parsed JSON payload, unvalidated. Any transport, status, timeout or parse failure throws
 * LlmBriefError, whose message never includes the API key.
 */
export async function llmBrief(
  facts: BriefFacts,
  cfg: LlmConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<unknown> {
  const { forbiddenNames: _never, ...shared } = facts;
  const controller = new AbortController();
  // The timeout covers the whole exchange, reading the body included.
  const timer = setTimeout(() => controller.abort(), cfg.timeoutMs);
  let body: unknown;
  try {
    let res: Response;
    try {
      res = await fetchImpl(completionsUrl(cfg.url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: cfg.model,
          temperature: 0,
          response_format: { type: "json_object" },
          messages: [
            { role: "system", content: SYSTEM_PROMPT },
            { role: "user", content: JSON.stringify(shared) },
          ],
        }),
        signal: controller.signal,
      });
    } catch (e) {
      const reason = controller.signal.aborted
        ? `timed out after ${cfg.timeoutMs} ms`
        : "request failed";
      throw new LlmBriefError(`LLM ${reason}: ${e instanceof Error ? e.name : "error"}`);
    }
    if (!res.ok) throw new LlmBriefError(`LLM answered HTTP ${res.status}`);
    try {
      body = await res.json();
    } catch {
      throw new LlmBriefError(
        controller.signal.aborted
          ? `LLM timed out after ${cfg.timeoutMs} ms`
          : "LLM answer is not JSON",
      );
    }
  } finally {
    clearTimeout(timer);
  }
  const content = (body as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]
    ?.message?.content;
  if (typeof content !== "string") throw new LlmBriefError("LLM answer has no message content");
  // Some models wrap JSON in a code fence despite the instructions.
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmBriefError("LLM message is not a JSON object");
  }
}
