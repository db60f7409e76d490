// Resolves this repository's workspace packages (packages/*, e.g. @cashrunway/mcp) to their
// TypeScript sources through their "@cashrunway/source" export condition, as tsconfig.json's
// customConditions and vitest.config.ts do, so running from a checkout needs no build. Installed
// from npm, the packages resolve to their built dist/ (the condition is never set there).
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier, {
    ...context,
    conditions: [...context.conditions, "@cashrunway/source"],
  });
}
