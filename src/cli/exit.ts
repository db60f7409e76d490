/**
 * Exits with `code` once everything written to stdout and stderr has been handed to the system.
 * `process.exit()` alone drops what is still queued: on a pipe (`cashrunway … --json | jq`) Node
 * writes what fits in the pipe's buffer (64 KiB on Linux) at once and queues the rest, so a long
 * output was cut at 65,536 bytes and the JSON left unfinished.
 */
export async function exitWhenFlushed(code: number): Promise<never> {
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      // An empty write's callback runs after every write queued before it.
      if (stream.writableEnded || stream.destroyed) resolve();
      else stream.write("", () => resolve());
    });
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}
