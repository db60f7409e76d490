import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

describe("exitWhenFlushed", () => {
  it("lets a reader of a pipe receive a whole megabyte written just before the exit", () => {
    const module = join(import.meta.dirname, "exit.ts");
    const script = `
      const { exitWhenFlushed } = await import(${JSON.stringify(module)});
      process.stdout.write("x".repeat(1_000_000) + "\\n");
      process.stderr.write("y".repeat(200_000) + "\\n");
      await exitWhenFlushed(3);
    `;
    const child = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        encoding: "utf8",
        maxBuffer: 10_000_000,
      },
    );
    expect(child.status, child.stderr.slice(0, 500)).toBe(3);
    expect(child.stdout).toHaveLength(1_000_001);
    expect(child.stderr).toHaveLength(200_001);
  });
});
