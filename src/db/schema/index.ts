export * from "./forecast.ts";
export * from "./insights.ts";
export * from "./keys.ts";
export * from "./ledger.ts";
export * from "./ledger-live.ts";
export * from "./metering.ts";
export * from "./tenancy.ts";
export * from "./web.ts";
