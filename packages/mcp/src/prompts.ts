import {
  ErrorCode,
  type GetPromptResult,
  McpError,
  type Prompt,
} from "@modelcontextprotocol/sdk/types.js";
import type { Reach } from "./server.ts";

interface PromptSpec {
  prompt: Prompt;
  /** The scope its main tool needs: the prompt is offered only to keys holding it. */
  scope: string;
  text: (args: Record<string, string>) => string;
}

const orgArgument = {
  name: "orgId",
  description: "The organisation, for a key that reaches several (orgs_list lists them).",
  required: false,
};

const forOrg = (args: Record<string, string>) =>
  args.orgId ? ` Pass orgId "${args.orgId}" to every tool.` : "";

/** The questions users ask most, each built on the tools that answer it. */
const PROMPTS: readonly PromptSpec[] = [
  {
    prompt: {
      name: "business_today",
      title: "How is the business doing today?",
      description:
        "Cash today, the last 7 days, receivables and the forecast headline, in plain words.",
      arguments: [orgArgument],
    },
    scope: "READ_SUMMARY",
    text: (args) =>
      "How is the business doing today? Call daily_summary first; if more context helps, add " +
      "revenue_summary and expenses_summary (financial year to date). Answer in a few short " +
      "paragraphs: cash now, money in and out this week and why, what customers owe and how " +
      "overdue it is, and the 13-week outlook. Quote amounts exactly as given, with the " +
      `currency, and mention any alerts or notes.${forOrg(args)}`,
  },
  {
    prompt: {
      name: "runway_and_weeks_at_risk",
      title: "What is our runway, and which weeks are at risk?",
      description:
        "The 13-week forecast read for the lowest point and the weeks below a threshold.",
      arguments: [
        orgArgument,
        {
          name: "threshold",
          description: "Minimum comfortable cash balance (default: zero).",
          required: false,
        },
      ],
    },
    scope: "READ_FORECAST",
    text: (args) =>
      "What is our cash runway, and which weeks are at risk? Call cash_position_get and " +
      "forecast_get once each. Report the cash now, the lowest closing balance and its week, " +
      `every week whose closing cash is below ${args.threshold ? args.threshold : "zero"}, and ` +
      "what drives those weeks (large outflows, late receipts). If cash never drops below the " +
      `threshold within 13 weeks, say so plainly.${forOrg(args)}`,
  },
  {
    prompt: {
      name: "who_owes_us",
      title: "Who owes us money?",
      description: "Unpaid invoices by customer, the total outstanding and what is overdue.",
      arguments: [orgArgument],
    },
    scope: "READ_INVOICES",
    text: (args) =>
      "Who owes us money? Call invoices_list with status AUTHORISED and totals true for the " +
      "outstanding total and the largest unpaid invoices (one page is enough: narrow with " +
      "contactId or dates rather than paging). If daily_summary is available, use its " +
      "receivables ageing for what is overdue. List the customers owing the most, with amounts " +
      `and due dates, and the total outstanding.${forOrg(args)}`,
  },
];

/** The prompts a key's scopes can serve. */
export function listPrompts(reach: Reach): Prompt[] {
  return PROMPTS.filter((p) => reach.scopes.includes(p.scope)).map((p) => p.prompt);
}

export function getPrompt(name: string, args: Record<string, string>): GetPromptResult {
  const spec = PROMPTS.find((p) => p.prompt.name === name);
  if (!spec) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  return {
    description: spec.prompt.description,
    messages: [{ role: "user", content: { type: "text", text: spec.text(args) } }],
  };
}
