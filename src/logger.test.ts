import { Writable } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { createLogger, lazyChild } from "./logger.ts";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger("info", sink), lines };
}

describe("lazyChild", () => {
  it("makes no child until something is logged through it", () => {
    const { logger } = capture();
    const child = vi.spyOn(logger, "child");
    lazyChild(logger, { requestId: "req-1" });
    expect(child).not.toHaveBeenCalled();
  });

  it("logs every level with the bindings, through one child, redacting as the base does", async () => {
    const { logger, lines } = capture();
    const child = vi.spyOn(logger, "child");
    const log = lazyChild(logger, { requestId: "req-1" });
    log.info({ n: 1 }, "first");
    log.warn("second");
    log.error({ secret: "s3cr3t" }, "third");
    log.debug("below the level: not written");
    await new Promise((r) => setImmediate(r));
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ["first", "req-1"],
      ["second", "req-1"],
      ["third", "req-1"],
    ]);
    expect(lines[0]?.n).toBe(1);
    expect(lines[2]?.secret).toBe("[redacted]");
  });
});
