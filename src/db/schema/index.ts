export * from "./keys.ts";
export * from "./ledger.ts";
export * from "./tenancy.ts";
