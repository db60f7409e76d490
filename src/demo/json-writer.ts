import { createHash, type Hash } from "node:crypto";
import { once } from "node:events";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";

/** What a written file amounts to, for the summary and the determinism tests. */
export interface WrittenFile {
  /** Path relative to the export folder, with forward slashes. */
  path: string;
  bytes: number;
  sha256: string;
  /** Elements in the file's main array. */
  count: number;
}

const FLUSH_AT = 1 << 20;

/**
 * Streams one ledger response envelope `{ …head, "<Collection>": [ …items ] }` to disk. Items
 * arrive as ready-made JSON text (numbers already written as decimal literals), are buffered up
 * to 1 MiB and written with back-pressure. The file appears under its final name only when
 * complete (written to `.tmp`, then renamed), so an importer never reads half a file.
 */
export class CollectionWriter {
  private readonly stream: WriteStream;
  private readonly hash: Hash = createHash("sha256");
  private readonly tmpPath: string;
  private buffer: string[] = [];
  private buffered = 0;
  private bytes = 0;
  private count = 0;

  private constructor(
    private readonly folder: string,
    private readonly relPath: string,
    head: string,
    private readonly tail: string,
  ) {
    this.tmpPath = `${join(folder, relPath)}.tmp`;
    this.stream = createWriteStream(this.tmpPath);
    this.push(head);
  }

  /**
   * Opens `relPath` in `folder`. `head` is the envelope text up to and including the array's
   * opening bracket, `tail` what closes it.
   */
  static async open(
    folder: string,
    relPath: string,
    head: string,
    tail = "]}",
  ): Promise<CollectionWriter> {
    await mkdir(dirname(join(folder, relPath)), { recursive: true });
    return new CollectionWriter(folder, relPath, head, tail);
  }

  /** Appends one array element (JSON text). */
  async add(json: string): Promise<void> {
    this.push(this.count === 0 ? json : `,${json}`);
    this.count += 1;
    if (this.buffered >= FLUSH_AT) await this.flush();
  }

  get size(): number {
    return this.count;
  }

  /** Writes the tail, closes the file and moves it to its final name. */
  async close(): Promise<WrittenFile> {
    this.push(this.tail);
    await this.flush();
    this.stream.end();
    await once(this.stream, "finish");
    await rename(this.tmpPath, join(this.folder, this.relPath));
    return {
      path: this.relPath,
      bytes: this.bytes,
      sha256: this.hash.digest("hex"),
      count: this.count,
    };
  }

  /** Removes the partial file after a failure. */
  async abort(): Promise<void> {
    this.stream.destroy();
    await rm(this.tmpPath, { force: true });
  }

  private push(text: string): void {
    this.buffer.push(text);
    this.buffered += text.length;
  }

  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = Buffer.from(this.buffer.join(""), "utf8");
    this.buffer = [];
    this.buffered = 0;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (!this.stream.write(chunk)) await once(this.stream, "drain");
  }
}

/** JSON string literal (names and descriptions come from word lists but may hold quotes). */
export function str(value: string): string {
  return JSON.stringify(value);
}
