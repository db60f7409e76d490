export { registerGetContact } from "./get.ts";
export { registerListContacts } from "./list.ts";
export type { ContactDrillResponse, ContactsListResponse } from "./schema.ts";
export { ContactDrillResponseSchema, ContactsListResponseSchema } from "./schema.ts";
