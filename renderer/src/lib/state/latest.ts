/**
 * "The newest read wins", one mechanism for every state class. A page reads, the person acts, an
 * event reads again: answers come back in any order, and an older one must never replace a newer
 * one, nor undo what a write (an action's answer, an event's snapshot) put meanwhile.
 *
 *     const read = this.#latest.read();
 *     const result = await bridge.invoke(…);
 *     if (!read.current) return result;   // a newer read started, or a write superseded it
 */
export class Latest {
  #issued = 0;
  /** Reads numbered up to this one were superseded by a write. */
  #superseded = 0;

  /** Start a read. */
  read(): Ticket {
    return this.#ticket(++this.#issued);
  }

  /** Continue the current read (its next page): it applies while no newer read started. */
  follow(): Ticket {
    return this.#ticket(this.#issued);
  }

  /** A write put fresher state (or the state was reset): every read started before it no longer applies. */
  supersede(): void {
    this.#superseded = this.#issued;
  }

  #ticket(number: number): Ticket {
    const issued = () => this.#issued;
    const superseded = () => this.#superseded;
    return {
      get newest() {
        return number === issued();
      },
      get current() {
        return number === issued() && number > superseded();
      },
    };
  }
}

/** One read's standing. */
export interface Ticket {
  /** No read started after this one (its `loading` flag is still this read's to clear). */
  readonly newest: boolean;
  /** Its answer may be applied: newest, and no write came after it started. */
  readonly current: boolean;
}
