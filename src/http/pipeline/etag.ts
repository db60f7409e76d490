import { createHash } from "node:crypto";

/**
 * Entity tags of agent responses (docs/api.md, "Conditional requests").
 *
 * The tag is computed from the response itself, after the handler: a hash of the serialised body
 * (without its `billingAlert`, whose state the headers carry: agent-call.ts) and of the key's view (route template and the key's scopes in the target
 * organisation). So it changes whenever anything the client would read changes, whatever caused
 * it (an import or sync, a recomputed forecast, a sensitive flag, a scope, the clock moving a
 * figure such as an ageing bucket), and a `304` never hides a change: no organisation "data
 * version" has to be kept in step with every writer. The price is that a conditional request
 * still runs its handler; it saves the credit and the bytes, not the database work.
 *
 * Weak (`W/"…"`): the same tag is sent for the identity and the compressed representations, which
 * a strong validator must not do; `If-None-Match` uses the weak comparison anyway (RFC 9110
 * 13.1.2).
 */
export function entityTag(body: string | Uint8Array, view: string): string {
  const hash = createHash("sha256").update(view).update("\0").update(body).digest("base64url");
  // 132 bits: collisions are out of reach, the header stays short.
  return `W/"${hash.slice(0, 22)}"`;
}

/** The key's view that, besides the body, goes into a tag. */
export function viewOf(routeTemplate: string, scopes: readonly string[]): string {
  return `${routeTemplate}\0${[...scopes].sort().join(",")}`;
}

/**
 * Whether an `If-None-Match` field matches `tag` (weak comparison): `*`, or a comma-separated
 * list of entity tags one of which has the same opaque value. A malformed member matches nothing.
 */
export function ifNoneMatchHits(field: string | undefined, tag: string): boolean {
  if (field === undefined) return false;
  const wanted = opaque(tag);
  for (const raw of field.split(",")) {
    const member = raw.trim();
    if (member === "*") return true;
    if (member !== "" && opaque(member) === wanted) return true;
  }
  return false;
}

/** `"abc"` of `W/"abc"` or `"abc"`; null for anything else. */
function opaque(tag: string): string | null {
  const quoted = tag.startsWith("W/") ? tag.slice(2) : tag;
  return quoted.length >= 2 && quoted.startsWith('"') && quoted.endsWith('"') ? quoted : null;
}
