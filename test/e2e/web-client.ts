import type { App } from "../../src/app.ts";

/**
 * A minimal browser stand-in over `app.request()`: keeps cookies, follows nothing (tests look
 * at redirects), and finds the CSRF field of the last page.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  lastHtml = "";

  constructor(private readonly app: App) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attrs] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0/i.test(a.trim()));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await this.app.request(path, {
      headers: { cookie: this.cookieHeader(), ...headers },
    });
    this.keep(res);
    if ((res.headers.get("content-type") ?? "").includes("text/html"))
      this.lastHtml = await res.clone().text();
    return res;
  }

  async post(
    path: string,
    fields: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) {
      for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
    }
    const res = await this.app.request(path, {
      method: "POST",
      headers: {
        cookie: this.cookieHeader(),
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body,
    });
    this.keep(res);
    if ((res.headers.get("content-type") ?? "").includes("text/html"))
      this.lastHtml = await res.clone().text();
    return res;
  }

  /** The `_csrf` value of the last HTML page. */
  csrf(): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(this.lastHtml);
    if (!m?.[1]) throw new Error(`no CSRF field in the last page: ${this.lastHtml.slice(0, 300)}`);
    return m[1];
  }

  /** The `_org` value of the last HTML page: the organisation its forms act on. */
  org(): string {
    const m = /name="_org" value="([^"]+)"/.exec(this.lastHtml);
    if (!m?.[1]) throw new Error(`no _org field in the last page: ${this.lastHtml.slice(0, 300)}`);
    return m[1];
  }

  /** The hidden fields of a form acting on the last page's organisation: `_csrf` and `_org`. */
  orgForm(): { _csrf: string; _org: string } {
    return { _csrf: this.csrf(), _org: this.org() };
  }

  /** Signs in through the form; returns the POST's response (303 on success). */
  async signIn(email: string, password: string, next = "/"): Promise<Response> {
    await this.get(`/settings/login?next=${encodeURIComponent(next)}`);
    return this.post("/settings/login", { _csrf: this.csrf(), email, password, next });
  }
}
