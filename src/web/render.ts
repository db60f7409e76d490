import type { JSX } from "hono/jsx/jsx-runtime";
import type { WebContext } from "./request.ts";

/** Renders a JSX page as a full HTML document (with its doctype, so browsers use standards mode). */
export async function renderPage(
  c: WebContext,
  page: JSX.Element,
  status: 200 | 400 | 401 | 403 | 404 | 409 | 429 | 500 = 200,
): Promise<Response> {
  const html = String(await page);
  return c.html(`<!DOCTYPE html>${html}`, status);
}
