/** An error answer of the agent API, as a tool reports it. */
export interface AgentError {
  /** HTTP status; 0 when the service could not be reached. */
  status: number;
  /** The API's `error` code (`credits_exhausted`, `insufficient_scope`, ...). */
  code: string;
  message?: string;
  requestId?: string;
  retryAfterSeconds?: number;
  requiredScope?: string;
  parameter?: string;
}

const minutes = (seconds: number) => Math.max(1, Math.ceil(seconds / 60));

/** What a model should do about each error, in one or two sentences. */
export function whatToDo(e: AgentError): string {
  const wait = e.retryAfterSeconds ?? 60;
  switch (e.code) {
    case "unauthorized":
      return "The API key was refused (revoked, mistyped or missing). Ask the user for a valid key (Settings → API keys); retrying will not help.";
    case "insufficient_scope":
      return `This key lacks the scope ${e.requiredScope ?? "this tool needs"}. Use another tool, or ask the key's owner for a key that includes ${e.requiredScope ?? "it"}.`;
    case "forbidden":
      return "That organisation is outside this key's reach. orgs_list shows the organisations it can read.";
    case "org_required":
      return "This key reaches several organisations: call again with orgId (orgs_list lists them).";
    case "invalid_parameter":
      return `Fix ${e.parameter ? `the parameter ${e.parameter}` : "the arguments"} and call again.`;
    case "invalid_cursor":
      return "The cursor is stale or belongs to other filters: call again without cursor (same filters).";
    case "not_found":
      return "Nothing with that id in this organisation: take the id from the matching list tool and call again.";
    case "no_brief_yet":
      return "No brief has been written for this organisation yet (one is written daily at 06:00 UTC): use daily_summary instead.";
    case "rate_limited":
      return `Too many calls to this tool in a minute: wait ${wait} s before calling it again.`;
    case "credits_exhausted":
      return `The query credits of the rolling 5-hour window are used up; the next one frees in ${wait} s (about ${minutes(wait)} min). Do not retry before then. Tell the user: the account owner can upgrade the plan or turn on automatic top-up. status_get is free and shows the credits.`;
    case "no_billable_seat":
      return "The key's user holds no seat on this organisation's billing account: the account owner must add one. Retrying will not help.";
    case "service_unavailable":
      return `The service cannot check query credits right now: retry in ${wait} s.`;
    case "connection_failed":
      return "Check that the Cash Runway service is running and that CASHRUNWAY_URL points at it, then retry.";
    default:
      return e.status >= 500
        ? `The service failed; retry later, and quote the request id ${e.requestId ?? ""} if it persists.`
        : "Check the arguments and call again.";
  }
}

/**
 * The text of a tool error: the code and status first (what a model keys on), the API's message,
 * the machine-readable details as one JSON line, then what to do.
 */
export function errorText(e: AgentError): string {
  const details = Object.fromEntries(
    Object.entries({
      error: e.code,
      status: e.status || undefined,
      retryAfterSeconds: e.retryAfterSeconds,
      requiredScope: e.requiredScope,
      parameter: e.parameter,
      requestId: e.requestId,
    }).filter(([, v]) => v !== undefined),
  );
  return [
    `Error ${e.code}${e.status ? ` (HTTP ${e.status})` : ""}${e.message ? `: ${e.message}` : ""}`,
    JSON.stringify(details),
    `What to do: ${whatToDo(e)}`,
  ].join("\n");
}
