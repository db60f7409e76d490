/**
 * The statement name for Drizzle's `.prepare()` on hot queries: empty, i.e. an unnamed
 * statement. Reusing the prepared query object skips Drizzle's query building on every call
 * (the bulk of the cost); a *named* server-side statement would save a little more but breaks
 * where one database session is shared by several client connections: the embedded database's
 * socket (a second CLI process fails with `prepared statement "…" already exists`) and
 * transaction-pooling proxies (figures: docs/benchmarks.md, "Optimisations in the code").
 */
export const UNNAMED_STATEMENT = "";
