export { OrgsResponseSchema } from "../../../../contracts/agent/orgs.ts";
export { registerListOrgs } from "./list.ts";
