import type { MiddlewareHandler } from "hono";
import { hasScope, type Scope } from "../../domain/scopes.ts";
import { InsufficientScopeError } from "../../services/errors.ts";
import type { AppEnv } from "../env.ts";

/**
 * 403 `insufficient_scope` (naming `requiredScope`) unless the key holds `scope`. Fail-closed:
 * no key, or a key whose stored scopes hold unknown strings, never passes by accident.
 */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.get("key");
    if (!key || !hasScope(key.scopes, scope)) throw new InsufficientScopeError(scope);
    await next();
  };
}
