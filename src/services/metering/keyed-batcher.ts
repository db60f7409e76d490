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

  run(key: string, input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const waiting = this.queues.get(key);
      if (waiting) {
        waiting.push({ input, resolve, reject });
        return;
      }
      // Nothing of this key in flight: an empty queue marks it busy while this call goes alone.
      this.queues.set(key, []);
      void this.drain(key, [{ input, resolve, reject }]);
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
      batch = waiting.splice(0, this.maxBatch);
    }
    this.queues.delete(key);
  }
}

interface Pending<I, O> {
  input: I;
  resolve(value: O): void;
  reject(reason: unknown): void;
}
