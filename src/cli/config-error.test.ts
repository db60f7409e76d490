import { afterEach, describe, expect, it, vi } from "vitest";
import { COMMANDS } from "./commands/index.ts";
import { runCli } from "./run-cli.ts";

describe("a bad setting in the environment", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("stops serve before it opens anything: one line naming it, exit code 1", async () => {
    vi.stubEnv("BURST_LIMIT_PER_MINUTE", "lots");
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runCli(["serve"], COMMANDS, {
      stdout: (text) => stdout.push(text),
      stderr: (text) => stderr.push(text),
    });
    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr.join("")).toBe(
      'cashrunway serve: Invalid configuration: BURST_LIMIT_PER_MINUTE="lots": must be a whole ' +
        "number of requests per minute\n",
    );
  });
});
