import type { Api } from "../../api.ts";
import type { AppDeps } from "../../env.ts";

/** Registers every agent route and the OpenAPI document. */
export function registerAgentApi(_api: Api, _deps: AppDeps): void {}
