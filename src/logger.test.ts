import { Writable } from "node:stream";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it, vi } from "vitest";
import { createLogger, lazyChild, logDestination, prettyLine } from "./logger.ts";

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

describe("error logging", () => {
  it("logs a failed statement's SQL and the database's reason, never its parameters", async () => {
    const { logger, lines } = capture();
    const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: "22021",
    });
    const err = new DrizzleQueryError(
      "insert into api_keys (label, secret_digest) values ($1, $2)",
      ["a\u0000b", "digest-of-the-secret", "owner@example.test"],
      cause,
    );
    logger.error({ err }, "unhandled error");
    await new Promise((r) => setImmediate(r));
    const text = JSON.stringify(lines);
    expect(text).not.toContain("digest-of-the-secret");
    expect(text).not.toContain("owner@example.test");
    const logged = lines[0]?.err as Record<string, unknown>;
    expect(logged.message).toBe(
      "Failed query (parameters withheld): insert into api_keys (label, secret_digest) values ($1, $2)",
    );
    expect(text).toContain("invalid byte sequence");
  });
});

describe("LOG_FORMAT=pretty", () => {
  it("writes one readable line per log line, secrets still redacted, errors with their stack", () => {
    let text = "";
    const sink = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    const logger = createLogger("info", logDestination({ format: "pretty" }, sink));
    logger.info({ url: "http://127.0.0.1:3000", token: "cr_live_secret" }, "listening");
    logger.error({ err: new Error("went wrong") }, "request failed");
    const [first, second] = text.split("\n");
    expect(first).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}listening url=http:\/\/127\.0\.0\.1:3000 token=\[redacted\]$/,
    );
    expect(second).toMatch(/ ERROR request failed$/);
    expect(text).toContain("    Error: went wrong\n        at ");
    expect(text).not.toContain("cr_live_secret");
  });

  it("passes JSON through unchanged with LOG_FORMAT=json, and leaves a line that is not JSON as it is", () => {
    const line = '{"level":30,"msg":"x"}\n';
    let text = "";
    logDestination({ format: "json" }, {
      write: (s: string) => {
        text += s;
        return true;
      },
    } as NodeJS.WritableStream).write(line);
    expect(text).toBe(line);
    expect(prettyLine("not json")).toBe("not json\n");
  });
});
