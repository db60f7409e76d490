export { registerListOrgs } from "./list.ts";
export { OrgsResponseSchema } from "./schema.ts";
