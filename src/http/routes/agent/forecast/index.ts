export { registerGetForecast } from "./get.ts";
export type { ForecastResponseBody } from "./schema.ts";
export { ForecastResponseSchema } from "./schema.ts";
