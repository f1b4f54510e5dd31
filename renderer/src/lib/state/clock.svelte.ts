/** "Now" for relative times, ticking every 30 s by default so "3 min ago" stays true. */
export class Clock {
  #now = $state(Date.now());
  readonly #intervalMs: number;
  readonly #read: () => number;

  constructor(intervalMs = 30_000, read: () => number = () => Date.now()) {
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
