export { registerListOrgs } from "./list.ts";
export type { OrgsResponse } from "./schema.ts";
export { OrgsResponseSchema } from "./schema.ts";
