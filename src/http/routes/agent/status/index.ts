export type { StatusResponse } from "../../../../contracts/agent/status.ts";
export { StatusResponseSchema } from "../../../../contracts/agent/status.ts";
export { registerGetStatus } from "./get.ts";
