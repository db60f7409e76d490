import type { FC } from "hono/jsx";
import { Layout, Notice } from "../components/layout.tsx";
import { CSRF_FIELD } from "../request.ts";

/** The sign-in form. `csrfToken` is the double-submit value also set in a cookie. */
export const LoginPage: FC<{
  csrfToken: string;
  next: string;
  email?: string | undefined;
  error?: string | undefined;
  notice?: string | undefined;
}> = ({ csrfToken, next, email, error, notice }) => (
  <Layout title="Sign in">
    <div class="login">
      <h1>Sign in to Cash Runway</h1>
      <p class="lead">Settings: API keys, audit, sensitive data, partners and billing.</p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {notice ? <Notice kind="ok">{notice}</Notice> : null}
      <div class="panel">
        <form method="post" action="/settings/login">
          <input type="hidden" name={CSRF_FIELD} value={csrfToken} />
          <input type="hidden" name="next" value={next} />
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="username"
            required
            value={email ?? ""}
          />
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
          />
          <p>
            <button type="submit">Sign in</button>
          </p>
        </form>
      </div>
      <p class="muted">
        Forgot your password? An operator can set a new one with{" "}
        <code>cashrunway password set --email you@example.com</code>.
      </p>
    </div>
  </Layout>
);
