/**
 * "Now" for relative times and liveness. It ticks every 2 s by default: a part is live for 10 s after
 * it last checked in, so its dot must go quiet within seconds even when no update arrives (the
 * service went away); only what reads `now` on screen re-renders.
 */
export class Clock {
  #now = $state(Date.now());
  readonly #intervalMs: number;
  readonly #read: () => number;

  constructor(intervalMs = 2_000, read: () => number = () => Date.now()) {
    this.#intervalMs = intervalMs;
    this.#read = read;
    this.#now = read();
  }

  /** Epoch ms, as of the last tick. */
  get now(): number {
    return this.#now;
  }

  tick(): void {
    this.#now = this.#read();
  }

  /** Start ticking; returns the function that stops. */
  follow(): () => void {
    this.tick();
    const timer = setInterval(() => this.tick(), this.#intervalMs);
    return () => clearInterval(timer);
  }
}
