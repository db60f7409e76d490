export type { ForecastResponseBody } from "../../../../contracts/agent/forecast.ts";
export { ForecastResponseSchema } from "../../../../contracts/agent/forecast.ts";
export { registerGetForecast } from "./get.ts";
