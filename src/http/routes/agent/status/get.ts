import { StatusResponseSchema } from "../../../../contracts/agent/status.ts";
import { DEFAULT_LIMITS, type MeteringLimits } from "../../../../domain/metering/plans.ts";
import { readMeterFigures } from "../../../../services/metering/metering.ts";
import { getStatus } from "../../../../services/status/get-status.ts";
import type { Api } from "../../../api.ts";
import { type PipelineDeps, registerOrgRoute } from "../agent-route.ts";

/** `GET /api/agent/status` and `GET /api/agent/orgs/{orgId}/status`. */
export const registerGetStatus = (
  api: Api,
  deps: PipelineDeps,
  opts: { environment: "dev" | "prod"; limits?: MeteringLimits },
) =>
  registerOrgRoute(api, deps, {
    path: "/api/agent/status",
    operationId: "getStatus",
    tags: ["status"],
    summary: "Subscription, quota, credit usage and key context",
    description:
      "Call it when a session starts or before a billing-sensitive operation. It uses no query " +
      "credit (the burst cap still applies) and answers even when the key has no billable seat " +
      "(`usage` is then null). Its figures are the ones the `X-Service-*` headers of this " +
      "response carry. Like every organisation route it reads one organisation: a key reaching " +
      "several uses the nested form.",
    scope: null,
    chargesCredit: false,
    response: { schema: StatusResponseSchema, description: "Status of the key and organisation." },
    handler: async (ctx, _input, { admission }) => {
      const key = ctx.actor.type === "apiKey" ? ctx.actor.key : null;
      if (!key) throw new Error("status ran without an API key");
      // The metering step computed the figures for this request's headers; reuse them so body
      // and headers agree. Without real metering (tests), read them directly.
      const figures =
        admission?.figures ??
        (await readMeterFigures(deps.db, { key, org: ctx.org, now: ctx.now, limits: opts.limits }));
      // The limiter's own figures when metering admitted the call; else the configured ones.
      const limits = opts.limits ?? DEFAULT_LIMITS;
      const burstLimit = admission?.burstLimit ?? {
        limit: limits.burstLimit,
        windowSeconds: Math.round(limits.burstWindowMs / 1000),
      };
      return getStatus(deps.db, { ctx, figures, environment: opts.environment, burstLimit });
    },
  });
