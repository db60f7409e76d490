/*
 * The little Markdown the daily brief writes (`**strong**`, `*emphasis*`, `_emphasis_`,
 * `` `code` ``, `- ` list items, paragraphs), parsed into plain structures the page renders as
 * escaped JSX. Anything else is shown as its text: a link's label without its target, a heading
 * without its `#`, and a marker left unmatched is dropped, so no raw marker ever reaches the page.
 */

export type Inline = { kind: "text" | "strong" | "em" | "code"; text: string };
export type Block = { kind: "p" | "li"; inlines: Inline[] };

const INLINE =
  /(\*\*[^*]+?\*\*|__[^_]+?__|`[^`]+?`|\*[^*\s][^*]*?\*|_[^_\s][^_]*?_|\[[^\]]*\]\([^)]*\))/g;

/** Stray markers (an unmatched `*`, `_` or backtick) are removed from plain text. */
const strip = (text: string) => text.replace(/[*`]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, "");

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    const token = m[0];
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: "text", text: strip(text.slice(last, at)) });
    if (token.startsWith("**") || token.startsWith("__")) {
      out.push({ kind: "strong", text: strip(token.slice(2, -2)) });
    } else if (token.startsWith("`")) {
      out.push({ kind: "code", text: token.slice(1, -1) });
    } else if (token.startsWith("[")) {
      out.push({ kind: "text", text: strip(token.slice(1, token.indexOf("]"))) });
    } else {
      out.push({ kind: "em", text: strip(token.slice(1, -1)) });
    }
    last = at + token.length;
  }
  if (last < text.length) out.push({ kind: "text", text: strip(text.slice(last)) });
  return out.filter((i) => i.text !== "");
}

/** Paragraphs (separated by blank lines) and list items (`- `, `* `, `+ `, `1. `). */
export function parseMarkdown(source: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: "p", inlines: parseInline(paragraph.join(" ")) });
    paragraph = [];
  };
  for (const raw of source.split(/\r?\n/)) {
    const line = raw
      .trim()
      .replace(/^#{1,6}\s+/, "")
      .replace(/^>\s?/, "");
    if (line === "") {
      flush();
      continue;
    }
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      blocks.push({ kind: "li", inlines: parseInline(item[1] ?? "") });
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return blocks;
}
