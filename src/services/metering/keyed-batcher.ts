/**
 * What a caller that may give up passes: an AbortSignal, or anything with the same two fields
 * (the metering guard passes a plain object: an AbortController per request cost about 1% of
 * the agent pipeline's CPU).
 */
export interface GiveUp {
  readonly aborted: boolean;
  readonly reason?: unknown;
}

/**
 * Natural batching per key: a call whose key has nothing in flight is sent at once, alone; calls
 * arriving while one of their key is in flight wait and are sent together, in arrival order, as
 * soon as it returns. So an idle key pays no added latency, and a busy one pays one round trip
 * per batch instead of one per call. Calls of different keys never wait for each other.
 */
export class KeyedBatcher<I, O> {
  private readonly queues = new Map<string, Pending<I, O>[]>();

  /**
   * @param send sends one batch; must resolve to exactly one output per input, in order.
   * @param maxBatch the most inputs one `send` receives.
   */
  constructor(
    private readonly send: (key: string, inputs: I[]) => Promise<O[]>,
    private readonly maxBatch = 256,
  ) {}

  /**
   * @param signal once aborted, a call still waiting for its batch is dropped unsent and
   *   rejected with the signal's reason (a call already sent completes regardless).
   */
  run(key: string, input: I, signal?: GiveUp): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const pending = { input, resolve, reject, signal };
      const waiting = this.queues.get(key);
      if (waiting) {
        waiting.push(pending);
        return;
      }
      // Nothing of this key in flight: an empty queue marks it busy while this call goes alone.
      this.queues.set(key, []);
      void this.drain(key, [pending]);
    });
  }

  private async drain(key: string, first: Pending<I, O>[]): Promise<void> {
    let batch = first;
    while (batch.length > 0) {
      try {
        const outputs = await this.send(
          key,
          batch.map((p) => p.input),
        );
        if (outputs.length !== batch.length) {
          throw new Error(`batch of ${batch.length} answered ${outputs.length} results`);
        }
        for (const [i, p] of batch.entries()) p.resolve(outputs[i] as O);
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
      const waiting = this.queues.get(key) ?? [];
      batch = [];
      while (waiting.length > 0 && batch.length < this.maxBatch) {
        const next = waiting.shift() as Pending<I, O>;
        if (next.signal?.aborted) next.reject(next.signal.reason);
        else batch.push(next);
      }
    }
    this.queues.delete(key);
  }
}

interface Pending<I, O> {
  input: I;
  signal?: GiveUp | undefined;
  resolve(value: O): void;
  reject(reason: unknown): void;
}
