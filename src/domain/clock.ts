/** The one source of "now". Domain code takes `now` as an argument; only the edges hold a Clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A clock that starts at `start` and then advances in real time: `CASHRUNWAY_NOW` for demos and
 * black-box tests, where relative dates must line up with generated data.
 */
export function offsetClock(start: Date, real: () => number = Date.now): Clock {
  const offset = start.getTime() - real();
  return { now: () => new Date(real() + offset) };
}

/** A clock that only moves when told to, for tests. */
export function fixedClock(start: Date): Clock & { set(d: Date): void; advance(ms: number): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (d) => {
      current = d.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
