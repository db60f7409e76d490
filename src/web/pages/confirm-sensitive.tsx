import { createHash } from "node:crypto";
import { getCookie, setCookie } from "hono/cookie";
import type { FC } from "hono/jsx";
import { CsrfField, Layout, type NavKey } from "../components/layout.tsx";
import { isSecureRequest, type WebContext, type WebView } from "../request.ts";

/**
 * The first change of a sensitive flag in a session asks for confirmation (as the product's
 * page does), without script: the POST answers a page that says what the change does, with a
 * form re-posting the same fields plus `confirmSensitive=yes`. Once confirmed, a cookie bound to
 * the session (a digest of its key; it ends with the browser and means nothing in another
 * session) skips the step for the rest of the session. A convenience against a slip, not a
 * security control: the CSRF token and the role still guard every change.
 */
const COOKIE = "cr_sensitive_ok";
export const CONFIRM_FIELD = "confirmSensitive";

function sessionMark(view: WebView): string {
  return createHash("sha256")
    .update(`sensitive-confirmed:${view.session.tokenDigest}`)
    .digest("hex")
    .slice(0, 32);
}

/**
 * True when the change may go ahead: confirmed earlier in this session, or by this very form
 * (which then marks the session).
 */
export function sensitiveChangeConfirmed(
  c: WebContext,
  view: WebView,
  form: { get(name: string): string | undefined },
): boolean {
  const mark = sessionMark(view);
  if (getCookie(c, COOKIE) === mark) return true;
  if (form.get(CONFIRM_FIELD) !== "yes") return false;
  setCookie(c, COOKIE, mark, {
    httpOnly: true,
    sameSite: "Lax",
    secure: isSecureRequest(c),
    path: "/settings",
  });
  return true;
}

/** What the owner is asked before the session's first sensitive flag change. */
export const ConfirmSensitivePage: FC<{
  view: WebView;
  active: NavKey;
  action: string;
  /** The fields to post again (without the CSRF and organisation fields). */
  fields: [string, string][];
  what: string;
  flag: boolean;
  cancel: string;
}> = ({ view, active, action, fields, what, flag, cancel }) => (
  <Layout title="Confirm sensitive flag" view={view} active={active}>
    <h1>{flag ? "Flag as sensitive?" : "Clear the sensitive flag?"}</h1>
    <div class="panel" id="confirm-sensitive">
      <p>
        {flag ? (
          <>
            <strong>{what}</strong> will be hidden from every API key without{" "}
            <code>READ_SENSITIVE</code> from the very next response: lists drop its rows and
            summaries rename it. Totals are never masked.
          </>
        ) : (
          <>
            <strong>{what}</strong> will be visible again to every API key with the right scope,
            from the very next response, including keys without <code>READ_SENSITIVE</code>.
          </>
        )}
      </p>
      <p class="muted">Asked once per session: later changes apply at once.</p>
      <form method="post" action={action} class="inline">
        <CsrfField token={view.csrfToken} orgId={view.org?.id} />
        {fields.map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name={CONFIRM_FIELD} value="yes" />
        <button type="submit" class={flag ? "danger" : ""}>
          {flag ? "Flag as sensitive" : "Clear the flag"}
        </button>
      </form>{" "}
      <a class="button secondary" href={cancel}>
        Cancel
      </a>
    </div>
  </Layout>
);
