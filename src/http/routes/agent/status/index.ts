export { registerGetStatus } from "./get.ts";
export type { StatusResponse } from "./schema.ts";
export { StatusResponseSchema } from "./schema.ts";
