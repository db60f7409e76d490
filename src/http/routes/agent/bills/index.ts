export { registerListBills } from "./list.ts";
