import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { usageLines } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";

describe("the README's command list", () => {
  it("holds every usage line the CLI prints, word for word", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Command line"));
    const start = section.indexOf("```\n") + 4;
    const block = section.slice(start, section.indexOf("\n```", start));
    const listed = new Set(block.split("\n"));
    const missing = COMMANDS.flatMap(usageLines).filter((u) => !listed.has(u));
    expect(missing).toEqual([]);
    expect(listed.has("--version")).toBe(true);
  });
});
