import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { invalidParameter, onError } from "./errors.ts";

/**
 * An OpenAPIHono whose validation failures answer 400 `invalid_parameter` naming the parameter,
 * never a 5xx and never Zod's raw error object.
 */
export function createApi() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) return onError(invalidParameter(result.error), c);
    },
  });
}

export type Api = ReturnType<typeof createApi>;
