import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown } from "./markdown.ts";

const text = (blocks: ReturnType<typeof parseMarkdown>) =>
  blocks.flatMap((b) => b.inlines.map((i) => i.text)).join("|");

describe("brief markdown", () => {
  it("turns the brief's markers into strong, emphasis and code, keeping the words", () => {
    expect(parseInline("**Acme Pty** accounts for *34%* of `13` weeks")).toEqual([
      { kind: "strong", text: "Acme Pty" },
      { kind: "text", text: " accounts for " },
      { kind: "em", text: "34%" },
      { kind: "text", text: " of " },
      { kind: "code", text: "13" },
      { kind: "text", text: " weeks" },
    ]);
  });

  it("splits paragraphs and list items, and never leaves a raw marker", () => {
    const blocks = parseMarkdown(
      "## Cash\nFirst *line\ncontinues.\n\n- one **two**\n* three\n1. four [site](http://x) __five__ _six_ snake_case",
    );
    expect(blocks.map((b) => b.kind)).toEqual(["p", "li", "li", "li"]);
    const all = text(blocks);
    expect(all).not.toMatch(/[*`#[\]]|__/);
    expect(all).toContain("snake_case");
    expect(all).toContain("site");
    expect(blocks[0]?.inlines.map((i) => i.text).join("")).toBe("Cash First line continues.");
  });
});
