import { describe, expect, it } from "vitest";
import { KeyedBatcher } from "./keyed-batcher.ts";

/** A send whose calls the test completes by hand, recording what each batch held. */
function manualSend() {
  const sent: { key: string; inputs: number[]; finish(fail?: Error): void }[] = [];
  const send = (key: string, inputs: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      sent.push({
        key,
        inputs,
        finish: (fail) => (fail ? reject(fail) : resolve(inputs.map((i) => `${key}:${i}`))),
      });
    });
  return { sent, send };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("KeyedBatcher", () => {
  it("sends an idle key's call at once, alone", async () => {
    const { sent, send } = manualSend();
    const b = new KeyedBatcher(send);
    const p = b.run("a", 1);
    expect(sent.map((s) => s.inputs)).toEqual([[1]]);
    sent[0]?.finish();
    await expect(p).resolves.toBe("a:1");
  });

  it("batches calls that arrive while one is in flight, in arrival order", async () => {
    const { sent, send } = manualSend();
    const b = new KeyedBatcher(send);
    const first = b.run("a", 1);
    const later = [b.run("a", 2), b.run("a", 3), b.run("a", 4)];
    expect(sent).toHaveLength(1);
    sent[0]?.finish();
    await first;
    await tick();
    expect(sent.map((s) => s.inputs)).toEqual([[1], [2, 3, 4]]);
    sent[1]?.finish();
    await expect(Promise.all(later)).resolves.toEqual(["a:2", "a:3", "a:4"]);
    // Idle again: the next call goes alone at once.
    const again = b.run("a", 5);
    expect(sent.map((s) => s.inputs)).toEqual([[1], [2, 3, 4], [5]]);
    sent[2]?.finish();
    await expect(again).resolves.toBe("a:5");
  });

  it("never makes one key wait for another", () => {
    const { sent, send } = manualSend();
    const b = new KeyedBatcher(send);
    void b.run("a", 1);
    void b.run("b", 1);
    expect(sent.map((s) => s.key)).toEqual(["a", "b"]);
  });

  it("caps a batch at maxBatch and sends the rest next", async () => {
    const { sent, send } = manualSend();
    const b = new KeyedBatcher(send, 2);
    const all = [1, 2, 3, 4, 5].map((i) => b.run("a", i));
    sent[0]?.finish();
    await tick();
    sent[1]?.finish();
    await tick();
    sent[2]?.finish();
    await expect(Promise.all(all)).resolves.toEqual(["a:1", "a:2", "a:3", "a:4", "a:5"]);
    expect(sent.map((s) => s.inputs)).toEqual([[1], [2, 3], [4, 5]]);
  });

  it("rejects every call of a failed batch and goes on with the next", async () => {
    const { sent, send } = manualSend();
    const b = new KeyedBatcher(send);
    const first = b.run("a", 1);
    const second = b.run("a", 2);
    const third = b.run("a", 3);
    sent[0]?.finish();
    await first;
    await tick();
    sent[1]?.finish(new Error("database gone"));
    await expect(second).rejects.toThrow("database gone");
    await expect(third).rejects.toThrow("database gone");
    const fourth = b.run("a", 4);
    sent[2]?.finish();
    await expect(fourth).resolves.toBe("a:4");
  });

  it("drops a waiting call whose caller gave up, unsent; a call already sent completes", async () => {
    const { sent, send } = manualSend();
    const b = new KeyedBatcher(send);
    const inFlight = new AbortController();
    const first = b.run("a", 1, inFlight.signal);
    const gaveUp = new AbortController();
    const dropped = b.run("a", 2, gaveUp.signal);
    const kept = b.run("a", 3);
    gaveUp.abort(new Error("answered 503"));
    inFlight.abort(); // too late: already sent
    sent[0]?.finish();
    await expect(first).resolves.toBe("a:1");
    await expect(dropped).rejects.toThrow("answered 503");
    await tick();
    expect(sent.map((s) => s.inputs)).toEqual([[1], [3]]);
    sent[1]?.finish();
    await expect(kept).resolves.toBe("a:3");
  });

  it("rejects a batch answered with the wrong number of results", async () => {
    const b = new KeyedBatcher(async (_key: string, inputs: number[]) => inputs.slice(1));
    await expect(b.run("a", 1)).rejects.toThrow("batch of 1 answered 0 results");
  });
});
