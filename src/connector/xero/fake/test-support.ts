import { createHash, randomBytes } from "node:crypto";
import type { FakeLedger } from "./app.ts";
import { FAKE_CLIENT_ID, FAKE_CLIENT_SECRET } from "./app.ts";

/**
 * Runs the consent and code exchange against the fake in-process (`app.request`), as the service
 * does over HTTP: for tests that need a token without the service's connect flow.
 */
export async function fakeConsent(
  fake: Pick<FakeLedger, "app">,
  redirectUri = "http://127.0.0.1/ledger/callback",
): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const authorize = new URL("http://fake/identity/connect/authorize");
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: FAKE_CLIENT_ID,
    redirect_uri: redirectUri,
    scope: "offline_access accounting.invoices.read",
    state: "s",
    code_challenge: challenge,
    code_challenge_method: "S256",
  })) {
    authorize.searchParams.set(k, v);
  }
  const page = await (await fake.app.request(authorize.toString())).text();
  const href = /id="allow" href="([^"]+)"/.exec(page)?.[1]?.replaceAll("&#38;", "&");
  const code = href ? new URL(href).searchParams.get("code") : null;
  if (!code) throw new Error("the fake's consent page gave no code");
  const res = await fake.app.request("/connect/token", {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${FAKE_CLIENT_ID}:${FAKE_CLIENT_SECRET}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
  if (res.status !== 200) throw new Error(`the fake refused the code: ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
}
