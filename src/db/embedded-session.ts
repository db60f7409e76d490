import type { PGlite } from "@electric-sql/pglite";
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket";

/** Frontend messages after which the backend answers ReadyForQuery: a batch ends there. */
const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'
const PROTOCOL_3 = 196608;

interface Item {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (err: unknown) => void;
}

/**
 * The socket server's queue of frontend messages, replaced so that the embedded database's one
 * session serves one client at a time: a socket client holds the session from its first message
 * until the backend is ready for another client (after a Sync, a simple Query or a Terminate,
 * and not inside a transaction block). Meanwhile other socket clients wait, and so do this
 * process's own queries and transactions (it holds PGlite's transaction and query locks).
 *
 * Why: @electric-sql/pglite-socket (0.2.x) queues single messages. A client's Parse, Bind,
 * Execute and Sync could then be interleaved with another client's, or with a query of the
 * server itself, and bind to the other's unnamed statement: a `cashrunway demo` run while the
 * server answered requests failed with "bind message supplies 14310 parameters, but prepared
 * statement "" requires 8" (upstream: electric-sql/pglite#1046). A statement of a socket
 * client's transaction could likewise run inside one of the server's, and the reverse.
 *
 * A client holds the session as long as its batch or transaction lasts, as a PostgreSQL
 * session's locks would: a CLI import's transaction holds up the server's queries until it
 * commits (PGlite has one session, so it cannot run them beside it). A client that goes away
 * (its process ends) closes its socket, which rolls back its open transaction and frees the
 * session. Implements the methods the socket handlers call (`enqueue`, `getQueueLength`,
 * `clearQueueForHandler`, `clearTransactionIfNeeded`).
 */
export class EmbeddedSessionQueue {
  private queue: Item[] = [];
  /** The socket client holding the session, and how to give it back. */
  private holder: { handlerId: number; release: () => void } | null = null;
  /** One pump at a time (it also waits for the session there). */
  private running = false;

  constructor(private readonly db: PGlite) {}

  /** Installs the queue on a socket server, before `start()`. */
  static install(server: PGLiteSocketServer, db: PGlite): EmbeddedSessionQueue {
    const queue = new EmbeddedSessionQueue(db);
    (server as unknown as { queryQueue: EmbeddedSessionQueue }).queryQueue = queue;
    return queue;
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (d: Uint8Array) => void) {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.pump();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((item) => {
      if (item.handlerId !== handlerId) return true;
      item.reject(new Error("Handler disconnected"));
      return false;
    });
  }

  /** A client that goes away mid-transaction or mid-batch: roll back and free the session. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.holder?.handlerId !== handlerId) return;
    if (this.db.isInTransaction()) {
      await this.db.execProtocolRawStream(simpleQuery("ROLLBACK"), { onRawData: () => {} });
    }
    this.releaseSession();
    void this.pump();
  }

  /** Runs the queue: the holder's next message, or takes the session for the oldest waiting. */
  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (;;) {
        const holder = this.holder;
        if (!holder) {
          const first = this.queue[0];
          if (!first) return;
          await this.takeSession(first.handlerId);
          continue;
        }
        const index = this.queue.findIndex((i) => i.handlerId === holder.handlerId);
        if (index === -1) return; // the holder's next message has not arrived yet
        const [item] = this.queue.splice(index, 1);
        if (!item) return;
        await this.run(item);
        const batchEnded = endsBatch(item.message);
        if (batchEnded && !this.db.isInTransaction()) this.releaseSession();
      }
    } finally {
      this.running = false;
    }
  }

  private async run(item: Item): Promise<void> {
    let bytes = 0;
    try {
      await this.db.execProtocolRawStream(item.message, {
        onRawData: (data) => {
          bytes += data.length;
          item.onData(data);
        },
      });
      item.resolve(bytes);
    } catch (err) {
      item.reject(err);
    }
  }

  /** Holds PGlite's transaction lock, then its query lock (the order its own transactions use). */
  private takeSession(handlerId: number): Promise<void> {
    return new Promise<void>((acquired) => {
      void this.db._runExclusiveTransaction(() =>
        this.db.runExclusive(
          () =>
            new Promise<void>((release) => {
              this.holder = { handlerId, release };
              acquired();
            }),
        ),
      );
    });
  }

  private releaseSession(): void {
    const holder = this.holder;
    if (!holder) return;
    this.holder = null;
    holder.release();
  }
}

/**
 * Whether the backend answers ReadyForQuery after `message`: a Sync, a simple Query, a
 * Terminate, or the startup packet (no type byte: a length below 16 MB, so a first byte of 0
 * where every other message has an ASCII letter, then protocol version 3.0).
 */
function endsBatch(message: Uint8Array): boolean {
  const type = message[0];
  if (type === SYNC || type === QUERY || type === TERMINATE) return true;
  if (type !== 0 || message.length < 8) return false;
  return new DataView(message.buffer, message.byteOffset, 8).getInt32(4) === PROTOCOL_3;
}

/** A simple-protocol Query message. */
function simpleQuery(sql: string): Uint8Array {
  const text = Buffer.from(`${sql}\0`, "utf8");
  const message = Buffer.alloc(1 + 4 + text.length);
  message[0] = QUERY;
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  return message;
}
