/** What main's cache threads (worker.ts) receive and answer, shared by the writer and the tree reader. */
import type { MessagePort } from 'node:worker_threads';
import { isErrorKind } from '../../common/result';
import type { CacheJobName } from './all-jobs';

export interface Request {
  readonly id: number;
  readonly job: CacheJobName;
  readonly args: readonly unknown[];
  /** The tree reader answers with the JSON text of the value (worker-client.ts CacheWorker.read). */
  readonly text?: boolean;
}

/** A job's answer, or its failure with its kind if it has one. */
export function answer(port: MessagePort, id: number, work: () => unknown): void {
  try {
    port.postMessage({ id, ok: true, value: work() });
  } catch (e) {
    // An expected failure (a search too broad) keeps its kind: main answers it as that, not as a bug.
    const kind = e instanceof Error && 'kind' in e && isErrorKind(e.kind) ? e.kind : undefined;
    port.postMessage({ id, ok: false, error: e instanceof Error ? e.message : String(e), kind });
  }
}

/**
 * The tree reader hands main each answer it read ahead (a launch's heads and parts), as it reads
 * it: main answers the page's asks for them itself, without a turn in the reader, which may be busy
 * reading the next one (a 10,000-machine organization's parts: 0.1 s). `key` is {@link readKey}.
 */
export interface ReadAhead {
  readonly ahead: string;
  readonly text: string;
}

/**
 * Main tells the tree reader that a page asks for its trees (main had its first ask for a tree the
 * reader reads ahead, `CacheThread.takeAhead`, whether or not it was read yet): its boot is
 * over, and the reader may read the rest ahead (the organizations' parts) without taking a core from
 * it. See tree-reader.ts.
 */
export const READ_ON = 'read-on';

/** The key of a read (job and arguments), as the reader keeps its answers and hands them ahead. */
export function readKey(job: string, args: readonly unknown[]): string {
  return JSON.stringify([job, args]);
}
