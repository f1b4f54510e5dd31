import type { EventName, Events } from '../../common/events';

type Listener = <E extends EventName>(event: E, payload: Events[E]) => void;

/** Fans main's events out to every connected renderer (Electron windows, browser-mode sockets). */
export class EventBus {
  readonly #listeners = new Set<Listener>();

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const listener of this.#listeners) listener(event, payload);
  }

  /** Listen to every event; returns the function that stops listening. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
