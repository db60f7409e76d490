import type { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { alertFields } from "../../contracts/agent/alerts.ts";
import type { BurstLimitSchema, StatusResponseSchema } from "../../contracts/agent/status.ts";
import type { DbOrTx } from "../../db/client.ts";
import { apiKeys, ledgerConnections } from "../../db/schema/index.ts";
import type { ServiceContext } from "../context.ts";
import { NotFoundError } from "../errors.ts";
import type { MeterFigures } from "../metering/metering.ts";

/** The burst cap this deployment applies (`burstLimit` of /status; BURST_LIMIT_PER_MINUTE). */
export type BurstLimitFigures = z.infer<typeof BurstLimitSchema>;

/** The /status body before the pipeline adds alerts. */
export type StatusBody = Omit<z.infer<typeof StatusResponseSchema>, keyof typeof alertFields>;

/**
 * `GET /api/agent/status`: subscription, daily bucket, credit window, key and environment, from
 * the metering figures of this very request, so the body and the headers agree exactly.
 */
export async function getStatus(
  db: DbOrTx,
  input: {
    ctx: ServiceContext;
    figures: MeterFigures;
    environment: "dev" | "prod";
    burstLimit: BurstLimitFigures;
  },
): Promise<StatusBody> {
  const actor = input.ctx.actor;
  if (actor.type !== "apiKey") throw new NotFoundError("key");
  const [row] = await db
    .select({ createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(eq(apiKeys.id, actor.key.id));
  if (!row) throw new NotFoundError("key");
  const [ledger] = await db
    .select({ at: ledgerConnections.lastSuccessfulSyncAt })
    .from(ledgerConnections)
    .where(eq(ledgerConnections.orgId, input.ctx.org.id));
  return {
    subscription: input.figures.subscription,
    quota: input.figures.quota,
    usage: input.figures.usage,
    key: {
      prefix: actor.key.prefix,
      label: actor.key.label,
      family: actor.key.family,
      kind: actor.key.kind,
      scopes: [...actor.key.scopes],
      createdAt: row.createdAt.toISOString(),
      lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
    },
    environment: input.environment,
    lastSuccessfulSync: ledger?.at ? ledger.at.toISOString() : null,
    burstLimit: input.burstLimit,
  };
}
