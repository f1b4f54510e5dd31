/**
 * Keys and levels of lines, oldest first, in typed arrays that grow: a view of a million lines
 * costs 9 MB and a pass over it a few milliseconds. (In a plain array every key, being above 2^31,
 * is a boxed number: 24 MB a million, and ~150 ns per line to filter.)
 */
export class LineList {
  #keys: Float64Array;
  #levels: Uint8Array;
  #length = 0;

  constructor(capacity = 256) {
    this.#keys = new Float64Array(Math.max(16, capacity));
    this.#levels = new Uint8Array(Math.max(16, capacity));
  }

  static from(keys: readonly number[], levels: readonly number[]): LineList {
    const list = new LineList(keys.length);
    list.#keys.set(keys);
    list.#levels.set(levels);
    list.#length = keys.length;
    return list;
  }

  get length(): number {
    return this.#length;
  }

  key(i: number): number {
    return this.#keys[i] as number;
  }

  level(i: number): number {
    return this.#levels[i] as number;
  }

  lastKey(): number | undefined {
    return this.#length === 0 ? undefined : this.#keys[this.#length - 1];
  }

  push(key: number, level: number): void {
    this.#reserve(this.#length + 1);
    this.#keys[this.#length] = key;
    this.#levels[this.#length] = level;
    this.#length += 1;
  }

  /** The first index (from `from` on) whose key is ≥ `key`. */
  lowerBound(key: number, from = 0): number {
    let lo = from;
    let hi = this.#length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#keys[mid] as number) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Merge lines (ascending by key) in. Answers the position of the first that landed before the
   * previous end (merged parts' batches interleave, a filled gap lands in the past), or null when
   * all were appended. Only the tail the lines fall into is rewritten (usually the last moments).
   */
  merge(lines: readonly { readonly key: number; readonly level: number }[]): number | null {
    const first = lines[0];
    if (first === undefined) return null;
    const last = this.lastKey();
    if (last === undefined || first.key > last) {
      for (const line of lines) this.push(line.key, line.level);
      return null;
    }
    const at = this.lowerBound(first.key);
    const tailKeys = this.#keys.slice(at, this.#length);
    const tailLevels = this.#levels.slice(at, this.#length);
    this.#reserve(this.#length + lines.length);
    let out = at;
    let i = 0;
    let j = 0;
    while (i < tailKeys.length || j < lines.length) {
      const line = lines[j];
      if (line !== undefined && (i >= tailKeys.length || line.key < (tailKeys[i] as number))) {
        this.#keys[out] = line.key;
        this.#levels[out] = line.level;
        j += 1;
      } else {
        this.#keys[out] = tailKeys[i] as number;
        this.#levels[out] = tailLevels[i] as number;
        i += 1;
      }
      out += 1;
    }
    this.#length = out;
    return at;
  }

  /** Drop the first `n` lines (evicted). */
  dropFirst(n: number): void {
    const count = Math.min(n, this.#length);
    this.#keys.copyWithin(0, count, this.#length);
    this.#levels.copyWithin(0, count, this.#length);
    this.#length -= count;
  }

  /** The keys of [from, to) as a plain array (for a query). */
  keysIn(from: number, to: number): number[] {
    return Array.from(this.#keys.subarray(Math.max(0, from), Math.min(this.#length, to)));
  }

  /**
   * The lines whose level `wanted` says to keep, among all of them or (`only`: keys ascending, e.g.
   * the full-text index's answer for a text) among those with these keys.
   */
  filter(wanted: readonly boolean[], only: readonly number[] | null): LineList {
    const out = new LineList(only === null ? this.#length : Math.min(only.length, this.#length));
    const take = (i: number) => {
      const level = this.#levels[i] as number;
      if (wanted[level] === true) {
        out.#keys[out.#length] = this.#keys[i] as number;
        out.#levels[out.#length] = level;
        out.#length += 1;
      }
    };
    if (only === null) {
      for (let i = 0; i < this.#length; i++) take(i);
    } else {
      // Both ascending: each key found by a binary search from the previous one.
      let at = 0;
      for (const key of only) {
        at = this.lowerBound(key, at);
        if (at >= this.#length) break;
        if (this.#keys[at] === key) take(at);
      }
    }
    return out;
  }

  #reserve(capacity: number): void {
    if (capacity <= this.#keys.length) return;
    const size = Math.max(capacity, this.#keys.length * 2);
    const keys = new Float64Array(size);
    keys.set(this.#keys.subarray(0, this.#length));
    const levels = new Uint8Array(size);
    levels.set(this.#levels.subarray(0, this.#length));
    this.#keys = keys;
    this.#levels = levels;
  }
}
