export {
  type AgentPath,
  CashRunwayClient,
  CLIENT_VERSION,
  type ClientOptions,
  createClient,
  DEFAULT_BASE_URL,
  LIST_ITEMS,
  type ListItem,
  type ListPath,
  type PathParamsOf,
  type QueryOf,
  type RequestArgs,
  type RequestOptions,
  type ResponseBody,
  type RetryOptions,
} from "./client.ts";
export {
  ApiError,
  CashRunwayError,
  ConnectionError,
  type ErrorBody,
  type KnownErrorCode,
  retryAfterSeconds,
} from "./errors.ts";
export type { components, operations, paths } from "./schema.ts";
