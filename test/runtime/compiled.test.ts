import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript module without type declarations
import { isStale } from "../../bin/build.mjs";

const REPO = join(import.meta.dirname, "../..");
const bin = join(REPO, "bin/cashrunway.mjs");
const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], {
    env: { ...process.env, LOG_LEVEL: "silent" },
    encoding: "utf8",
    timeout: 120_000,
  });

describe("the compiled runtime (bin/cashrunway.mjs runs dist/cli, built by bin/build.mjs)", () => {
  it("builds when the sources are newer than dist, then runs the compiled JavaScript", () => {
    const version = run(["--version"]);
    expect(version.status, version.stderr).toBe(0);
    const { version: expected } = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8"));
    expect(version.stdout).toBe(`cashrunway ${expected}\n`);
    expect(existsSync(join(REPO, "dist/cli/main.js"))).toBe(true);
    expect(isStale()).toBe(false);

    const help = run(["keys", "--help"]);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toMatch(/^cashrunway keys: /);

    const typo = run(["keys", "list", "--jsn"]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe("cashrunway keys: unknown flag --jsn (did you mean --json?)\n");
  }, 180_000);
});
