import { TOOL_SPECS, type ToolSpec } from "./catalogue.ts";

/** A JSON Schema, as the OpenAPI 3.1 document writes them. */
export type JsonSchema = Record<string, unknown>;

/** The parts of an OpenAPI 3.1 document the tools are built from. */
export interface OpenApiDocument {
  paths: Record<string, { get?: OpenApiOperation } | undefined>;
  components?: { schemas?: Record<string, JsonSchema> };
}

interface OpenApiOperation {
  parameters?: {
    name: string;
    in: "query" | "path" | "header" | "cookie";
    required?: boolean;
    description?: string;
    schema?: JsonSchema;
  }[];
  responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  "x-required-scope"?: string | null;
}

/** An organisation the key reaches, as offered in the `orgId` input's description. */
export interface OrgChoice {
  id: string;
  name: string;
}

/** An MCP tool as `tools/list` returns it. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  outputSchema: JsonSchema & { type: "object" };
  annotations: {
    title: string;
    readOnlyHint: true;
    destructiveHint: false;
    idempotentHint: true;
    openWorldHint: false;
  };
}

/** A tool with what the server needs to list and run it. */
export interface AgentTool {
  spec: ToolSpec;
  /** The endpoint's required scope; null = any valid key. */
  scope: string | null;
  /** Names of the endpoint's path parameters besides `orgId` (`id`). */
  pathParams: readonly string[];
  /** Names of the query parameters a model may pass. */
  queryParams: readonly string[];
  /** The tool as listed to a key reaching one organisation (no `orgId` input). */
  single: McpTool;
  /** The tool as listed to a key reaching several (`orgId` required). */
  multi: (orgs: readonly OrgChoice[] | undefined) => McpTool;
}

const SCHEMA_REF = "#/components/schemas/";

/**
 * The tools of every agent endpoint, with input and output schemas taken from the OpenAPI
 * document (which the service generates from the routes' own Zod schemas): the server passes the
 * document it serves, the stdio package the checked-in copy in @cashrunway/client (a test keeps
 * that copy equal to the served one). Throws when the catalogue names an endpoint the document
 * lacks, so the two cannot drift apart silently.
 */
export function buildAgentTools(document: OpenApiDocument): AgentTool[] {
  return TOOL_SPECS.map((spec) => {
    const operation = document.paths[spec.path]?.get;
    if (!operation)
      throw new Error(`the OpenAPI document has no GET ${spec.path} (tool ${spec.name})`);
    const parameters = (operation.parameters ?? []).filter(
      (p) => p.name !== "orgId" && !(spec.omit ?? []).includes(p.name),
    );
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const p of parameters) {
      if (p.in !== "query" && p.in !== "path") continue;
      let schema: JsonSchema = {
        ...(p.schema ?? {}),
        description: p.description ?? p.schema?.description,
      };
      if (p.name === "limit" && spec.list) {
        schema = {
          ...schema,
          default: spec.list.defaultLimit,
          description:
            `Rows per page: ${spec.list.defaultLimit} unless given, at most 200. Keep pages small; ` +
            `narrow with ${spec.list.narrowWith} rather than paging through everything.`,
        };
      }
      properties[p.name] = schema;
      if (p.required) required.push(p.name);
    }
    const inputSchema = (extra: Record<string, JsonSchema>, extraRequired: string[]) => ({
      type: "object" as const,
      properties: { ...extra, ...properties },
      ...(required.length + extraRequired.length > 0
        ? { required: [...extraRequired, ...required] }
        : {}),
      additionalProperties: false,
    });
    const outputSchema = responseSchema(document, operation, spec.path);
    const tool = (input: JsonSchema & { type: "object" }): McpTool => ({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: input,
      outputSchema,
      annotations: {
        title: spec.title,
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    });
    return {
      spec,
      scope: operation["x-required-scope"] ?? null,
      pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
      queryParams: parameters.filter((p) => p.in === "query").map((p) => p.name),
      single: tool(inputSchema({}, [])),
      multi: (orgs) => tool(inputSchema({ orgId: orgIdSchema(orgs) }, ["orgId"])),
    };
  });
}

function orgIdSchema(orgs: readonly OrgChoice[] | undefined): JsonSchema {
  const listed =
    orgs && orgs.length > 0 && orgs.length <= 25
      ? ` This key reaches: ${orgs.map((o) => `${o.id} (${o.name})`).join(", ")}.`
      : " orgs_list lists them.";
  return {
    type: "string",
    minLength: 1,
    description: `The organisation to read: this key reaches several, so every call names one.${listed}`,
  };
}

/**
 * The 200 body's schema as a standalone JSON Schema: the referenced component inlined at the
 * root, the components it uses in `$defs` (refs rewritten to `#/$defs/…`). The structure is the
 * document's, unchanged; OpenAPI's `example` keywords are dropped (they are not JSON Schema) and
 * each description is cut to its first sentence, which keeps the whole tool list near 80 KB
 * instead of 150 KB of a model's context (the full texts are in the API reference at /docs).
 */
function responseSchema(
  document: OpenApiDocument,
  operation: OpenApiOperation,
  path: string,
): JsonSchema & { type: "object" } {
  const root = operation.responses["200"]?.content?.["application/json"]?.schema;
  if (!root) throw new Error(`GET ${path} has no JSON 200 response in the OpenAPI document`);
  const components = document.components?.schemas ?? {};
  const defs: Record<string, JsonSchema> = {};
  const pending: string[] = [];
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "example") continue;
      if (key === "description" && typeof value === "string") {
        out.description = firstSentence(value);
      } else if (key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!(name in defs) && !pending.includes(name)) pending.push(name);
        out.$ref = `#/$defs/${name}`;
      } else {
        out[key] = rewrite(value);
      }
    }
    return out;
  };
  const rootName =
    typeof root.$ref === "string" && root.$ref.startsWith(SCHEMA_REF)
      ? root.$ref.slice(SCHEMA_REF.length)
      : undefined;
  const rootSchema = rewrite(rootName ? components[rootName] : root) as JsonSchema;
  for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
    const component = components[name];
    if (!component) throw new Error(`the OpenAPI document has no component ${name}`);
    defs[name] = rewrite(component) as JsonSchema;
  }
  if (rootSchema.type !== "object") {
    throw new Error(`GET ${path}: an MCP output schema must be an object schema`);
  }
  return {
    ...rootSchema,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  } as JsonSchema & { type: "object" };
}

/** The first sentence of a description (a whole short one), at most 200 characters. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  const sentence = end >= 0 ? text.slice(0, end + 1) : text;
  return sentence.length <= 200 ? sentence : `${sentence.slice(0, 199)}…`;
}
