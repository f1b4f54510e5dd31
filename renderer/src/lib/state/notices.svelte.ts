/** Transient messages for things that have no place of their own on screen (a failed switch, a copy). */
export interface Notice {
  readonly id: number;
  readonly tone: 'error' | 'info' | 'success';
  readonly message: string;
}

export class Notices {
  #items = $state.raw<readonly Notice[]>([]);
  #nextId = 1;
  /** Auto-dismiss timers by notice id (bookkeeping, not state). */
  #timers: { readonly id: number; readonly timer: ReturnType<typeof setTimeout> }[] = [];

  get items(): readonly Notice[] {
    return this.#items;
  }

  /**
   * Show a message. Errors stay until dismissed (they say why something did not happen);
   * the others leave after `timeoutMs`.
   */
  push(tone: Notice['tone'], message: string, timeoutMs = 5_000): number {
    const id = this.#nextId++;
    // The same error twice in a row is shown once.
    const last = this.#items.at(-1);
    if (last && last.tone === tone && last.message === message) this.dismiss(last.id);
    this.#items = [...this.#items, { id, tone, message }].slice(-5);
    if (tone !== 'error') this.#timers.push({ id, timer: setTimeout(() => this.dismiss(id), timeoutMs) });
    return id;
  }

  dismiss(id: number): void {
    for (const t of this.#timers) if (t.id === id) clearTimeout(t.timer);
    this.#timers = this.#timers.filter((t) => t.id !== id);
    this.#items = this.#items.filter((n) => n.id !== id);
  }

  clear(): void {
    for (const t of this.#timers) clearTimeout(t.timer);
    this.#timers = [];
    this.#items = [];
  }
}
