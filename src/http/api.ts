import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./env.ts";
import { errorBody } from "./errors.ts";
import { jsonWithId } from "./request-id.ts";

/**
 * An OpenAPIHono whose validation failures answer 400 `invalid_parameter` naming the parameter,
 * never a 5xx and never Zod's raw error object.
 */
export function createApi() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      const parameter = issue ? issue.path.join(".") : undefined;
      const message = issue
        ? `${parameter ? `${parameter}: ` : ""}${issue.message}`
        : "Invalid request.";
      return jsonWithId(
        c,
        errorBody("invalid_parameter", message, parameter ? { parameter } : {}),
        400,
      );
    },
  });
}

export type Api = ReturnType<typeof createApi>;
