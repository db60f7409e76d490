export { registerGetForecast } from "./get.ts";
export type { ForecastResponseBody } from "./schema.ts";
export { ForecastResponseSchema, ForecastWeekSchema } from "./schema.ts";
