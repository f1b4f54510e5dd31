/**
 * A config's history read a page at a time, newest first (a part's changes, a fragment's
 * revisions): the first page read again after each save, older pages appended on request.
 * Every failure is kept to show, never thrown.
 */
import type { BridgeError, Result } from '../../../../common/result';
import { Latest } from '../state/latest';

/** How many history entries a page of the list reads. */
export const HISTORY_PAGE = 20;

/** One page of a history as the bridge answers it. */
export interface HistoryPage<T> {
  readonly entries: readonly T[];
  /** Empty when there is no older page. */
  readonly nextPageToken: string;
  readonly fromCache: boolean;
}

/** Two configs to show as a diff of a history entry, each with what it is. */
export interface HistoryDiff {
  readonly before: string;
  readonly after: string;
  readonly beforeLabel: string;
  readonly afterLabel: string;
}

export class PagedHistory<T> {
  readonly #read: (pageSize: number, pageToken: string | undefined) => Promise<Result<HistoryPage<T>>>;
  readonly #previous: (entry: T) => string | null;
  readonly #latest = new Latest();
  entries = $state.raw<readonly T[]>([]);
  /** The next (older) page's token; empty when there is none. */
  token = $state('');
  loading = $state(false);
  error = $state.raw<BridgeError | null>(null);
  fromCache = $state(false);

  /**
   * `read` asks the bridge for a page; `previous` is an entry's config before its change (null
   * when the entry made the config, as a fragment's creation did).
   */
  constructor(read: (pageSize: number, pageToken: string | undefined) => Promise<Result<HistoryPage<T>>>, previous: (entry: T) => string | null) {
    this.#read = read;
    this.#previous = previous;
  }

  /** Read the first page again, or the next one (`more`); a newer call supersedes one under way. */
  async load(more = false): Promise<void> {
    const read = this.#latest.read();
    this.loading = true;
    const result = await this.#read(HISTORY_PAGE, more && this.token ? this.token : undefined);
    if (!read.current) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    this.entries = more ? [...this.entries, ...result.value.entries] : result.value.entries;
    this.token = result.value.nextPageToken;
    this.fromCache = result.value.fromCache;
  }

  /**
   * The config after `entry`'s change: the previous state of the entry just newer than it, or
   * `latest` (the config now) for the newest.
   */
  after(entry: T, latest: string): string {
    const at = this.entries.indexOf(entry);
    const newer = at > 0 ? this.entries[at - 1] : undefined;
    return (newer && this.#previous(newer)) ?? latest;
  }

  /** The page is left: a read under way answers nothing. */
  close(): void {
    this.#latest.supersede();
  }
}
