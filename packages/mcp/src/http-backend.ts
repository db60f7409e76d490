import {
  type AgentPath,
  ApiError,
  type CashRunwayClient,
  ConnectionError,
} from "@cashrunway/client";
import type { Body } from "./catalogue.ts";
import type { AgentError } from "./errors.ts";
import type { AgentAnswer, AgentBackend, AgentCall, Reach } from "./server.ts";

/**
 * The backend of the stdio server: every tool call is a request to the HTTP API through the typed
 * client, so it is authenticated, scoped, metered and audited by the service like any other.
 *
 * The key's scopes are learnt from `GET /api/agent/status` (no query credit). A key reaching
 * several organisations gets 400 `org_required` there; its organisations then come from
 * `GET /api/agent/orgs` (one credit, once per session) and its scopes from the first one's
 * status. With the client's own `orgId` (CASHRUNWAY_ORG_ID) the key reads that organisation and
 * its tools take no `orgId`.
 */
export class HttpBackend implements AgentBackend {
  private learnt: Promise<Reach> | undefined;
  /** The one organisation of a single-organisation key, learnt when the daily brief needs it. */
  private ownOrg: Promise<string> | undefined;

  constructor(private readonly client: CashRunwayClient) {}

  reach(): Promise<Reach> {
    this.learnt ??= this.learnReach().catch((err: unknown) => {
      this.learnt = undefined; // a failed attempt is tried again on the next list
      throw err;
    });
    return this.learnt;
  }

  /** Forgets the reach, so that the next list learns it again (after an org_required). */
  forgetReach(): void {
    this.learnt = undefined;
  }

  private async learnReach(): Promise<Reach> {
    try {
      const status = await this.client.get("/api/agent/status");
      return { scopes: status.key.scopes, multiOrg: false };
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== "org_required") throw err;
    }
    const { orgs } = await this.client.get("/api/agent/orgs");
    const first = orgs[0];
    const scopes = first
      ? (await this.client.get("/api/agent/status", { orgId: first.id })).key.scopes
      : [];
    return { scopes, multiOrg: true, orgs: orgs.map((o) => ({ id: o.id, name: o.name })) };
  }

  async call(call: AgentCall): Promise<AgentAnswer> {
    try {
      let orgId = call.orgId;
      if (!orgId && call.tool.spec.path.includes("{orgId}") && !this.client.orgId) {
        orgId = await this.singleOrg();
      }
      const body = await this.client.get(
        call.tool.spec.path as AgentPath,
        {
          query: call.query,
          path: call.pathParams,
          orgId,
        } as never,
      );
      return { ok: true, body: body as Body };
    } catch (err) {
      if (err instanceof ApiError && err.code === "org_required") this.forgetReach();
      return { ok: false, error: agentError(err, this.client.baseUrl) };
    }
  }

  /** The organisation of a key reaching one (for the nested-only daily brief). */
  private singleOrg(): Promise<string> {
    this.ownOrg ??= this.client.get("/api/agent/orgs").then(({ orgs }) => {
      const [only, ...more] = orgs;
      if (!only || more.length > 0) {
        this.ownOrg = undefined;
        throw new ApiError(
          400,
          { error: "org_required", message: "pass orgId: this key reaches several organisations" },
          new Headers(),
        );
      }
      return only.id;
    });
    return this.ownOrg;
  }
}

function agentError(err: unknown, baseUrl: string): AgentError {
  if (err instanceof ApiError) {
    return {
      status: err.status,
      code: err.code,
      message: err.body.message,
      requestId: err.requestId,
      retryAfterSeconds: err.retryAfterSeconds,
      requiredScope: err.requiredScope,
      parameter: err.parameter,
    };
  }
  if (err instanceof ConnectionError) {
    return {
      status: 0,
      code: "connection_failed",
      message: `cannot reach ${baseUrl}: ${err.message}`,
    };
  }
  return {
    status: 0,
    code: "client_error",
    message: err instanceof Error ? err.message : String(err),
  };
}
