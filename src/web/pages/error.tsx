import type { FC } from "hono/jsx";
import { Layout, Notice } from "../components/layout.tsx";
import type { WebView } from "../request.ts";

/** An error page: the message, and a way back. */
export const ErrorPage: FC<{
  view: WebView | null;
  title: string;
  message: string;
  signIn?: boolean;
}> = ({ view, title, message, signIn }) => (
  <Layout title={title} view={view}>
    <h1>{title}</h1>
    <Notice kind="error">{message}</Notice>
    <p>
      {signIn || !view ? (
        <a href="/settings/login">Sign in</a>
      ) : (
        <a href="/">Back to the dashboard</a>
      )}
    </p>
  </Layout>
);
