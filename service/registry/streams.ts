/**
 * The upload streams this service runs now, shared by the upload handlers (one stream per file,
 * the bounds per key and in all) and the sweep of interrupted uploads (which must never delete
 * the bytes of a stream that is still receiving them, however old its upload row looks).
 */

/** A file's upload stream under way: receiving chunks, or completing (hashing and recording the file). */
export interface Streaming {
  readonly keyId: string;
  phase: 'receiving' | 'completing';
  /** The file's size once completing. */
  size: number;
  /** Newer streams of the same file waiting for this one to let go. */
  waiters: number;
  /** Stop receiving (a newer stream of the file continues); nothing once completing. */
  readonly takeOver: () => void;
  /** Resolves when the stream has let go of the file (its handler returned). */
  readonly released: Promise<void>;
}

export class UploadStreams {
  /** The stream that has each file now, by {@link fileKey}. */
  readonly byFile = new Map<string, Streaming>();
  /** Upload streams admitted and not yet answered, by API key (those waiting for their turn included). */
  readonly ofKey = new Map<string, number>();
  /** Upload streams admitted and not yet answered, all keys together. */
  total = 0;

  /** Whether a stream has this file now (receiving or completing): its bytes are not the sweep's. */
  busy(itemId: string, version: string, platform: string): boolean {
    return this.byFile.has(fileKey(itemId, version, platform));
  }

  /** The files streams have now. */
  *files(): Iterable<{ item_id: string; version: string; platform: string }> {
    for (const key of this.byFile.keys()) {
      const [item_id = '', version = '', platform = ''] = key.split('\0');
      yield { item_id, version, platform };
    }
  }

  /** Count a stream of `keyId` in, until {@link leave}. */
  enter(keyId: string): void {
    this.total += 1;
    this.ofKey.set(keyId, (this.ofKey.get(keyId) ?? 0) + 1);
  }

  leave(keyId: string): void {
    this.total -= 1;
    const left = (this.ofKey.get(keyId) ?? 1) - 1;
    if (left === 0) this.ofKey.delete(keyId);
    else this.ofKey.set(keyId, left);
  }
}

/** The map key of one file of one version of an item. */
export function fileKey(itemId: string, version: string, platform: string): string {
  return `${itemId}\0${version}\0${platform}`;
}
