export { type Body, type ListSpec, TOOL_BY_NAME, TOOL_SPECS, type ToolSpec } from "./catalogue.ts";
export { type AgentError, errorText, whatToDo } from "./errors.ts";
export { HttpBackend } from "./http-backend.ts";
export { getPrompt, listPrompts } from "./prompts.ts";
export {
  type AgentAnswer,
  type AgentBackend,
  type AgentCall,
  createAgentMcpServer,
  MCP_VERSION,
  type Reach,
  SERVER_INSTRUCTIONS,
  visibleTools,
} from "./server.ts";
export {
  createStdioServer,
  packagedDocument,
  runStdio,
  type StdioConfig,
  stdioConfig,
} from "./stdio.ts";
export {
  type AgentTool,
  buildAgentTools,
  type JsonSchema,
  type McpTool,
  type OpenApiDocument,
  type OrgChoice,
} from "./tools.ts";
