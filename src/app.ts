import type { OpenApiDocument } from "@cashrunway/mcp";
import type { Context } from "hono";
import { createApi } from "./http/api.ts";
import type { AppDeps, AppEnv } from "./http/env.ts";
import { onError } from "./http/errors.ts";
import { registerHealth } from "./http/health.ts";
import { allowedMethodsOf, notServed } from "./http/method-not-allowed.ts";
import { createMetrics, registerMetrics } from "./http/metrics.ts";
import { bearerToken } from "./http/pipeline/agent-call.ts";
import { createMetering, meteringLimitsOf } from "./http/pipeline/metering.ts";
import { requestLog } from "./http/request-log.ts";
import { OPENAPI_PATH } from "./http/routes/agent/agent-route.ts";
import { registerAgentApi } from "./http/routes/agent/index.ts";
import { pipelineRunner } from "./mcp/agent-operation.ts";
import { createMcpHandler, MCP_PATH } from "./mcp/endpoint.ts";
import { authenticateKey } from "./services/keys/authenticate-key.ts";
import { registerApiReference } from "./web/api-reference.ts";
import { registerWeb } from "./web/index.tsx";
import { registerLedgerRoutes } from "./web/routes/ledger.tsx";

/** The whole HTTP application, without listen(): tests call `app.request()`. */
export function createApp(deps: AppDeps) {
  const app = createApi();
  // Request counts and latency for every request (http/metrics.ts), so registered before all.
  const metrics = createMetrics(deps);
  app.use("*", metrics.middleware());
  const metering =
    deps.metering ??
    createMetering({
      db: deps.database.db,
      logger: deps.logger,
      limits: meteringLimitsOf(deps.config),
    });

  // The agent API first: its one handler answers every agent path but the public OpenAPI
  // document, its request id and log line included, so those requests run no other handler.
  const agent = registerAgentApi(app, { ...deps, metering: metrics.countDecisions(metering) });
  // Every other request: request id and log line.
  app.use("*", requestLog(deps.logger));
  agent.serveDocument();
  registerHealth(app, deps);
  registerMetrics(app, metrics, deps.config);
  // The document as /api/agent/openapi.json serves it (generated once, from the route schemas).
  let served: Promise<Record<string, unknown>> | undefined;
  const agentDocument = () => {
    served ??= Promise.resolve(app.request(OPENAPI_PATH)).then(
      (res) => res.json() as Promise<Record<string, unknown>>,
    );
    return served;
  };
  registerApiReference(app, { agentDocument });
  // MCP over Streamable HTTP: a tool call is the agent request it maps to, run through the agent
  // pipeline itself (src/mcp/agent-operation.ts).
  const mcp = createMcpHandler({
    db: deps.database.db,
    authenticate: (request) =>
      authenticateKey(
        deps.database.db,
        bearerToken(request.headers.get("authorization") ?? undefined),
        deps.keyCache,
      ),
    runAgentOperation: pipelineRunner(agent.pipeline, deps.logger),
    document: () => agentDocument() as Promise<unknown> as Promise<OpenApiDocument>,
  });
  // Stateless: POST only; GET (a server-initiated stream) and DELETE (a session) answer 405.
  app.post(MCP_PATH, (c) => mcp(c.req.raw));
  registerLedgerRoutes(app, deps); // the ledger's OAuth callback and webhook
  registerWeb(app, deps);

  // A path that exists for other methods answers 405 with Allow (after authentication on the
  // agent API, like a 404, so routes cannot be enumerated without a key).
  const allowedMethods = allowedMethodsOf(app.routes);
  app.notFound((c: Context<AppEnv>) => notServed(c, allowedMethods(c.req.path)));
  app.onError(onError);
  return app;
}

export type App = ReturnType<typeof createApp>;
