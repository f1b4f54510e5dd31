/**
 * Files main wrote for the user to take in browser mode (a log export): the page has no save dialog
 * of main's, so it downloads the file from the loopback server once, by a token that is hard to guess
 * and expires. The bytes go from disk to the socket without passing through the bridge.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';

export interface Download {
  readonly path: string;
  /** The file name the browser proposes. */
  readonly name: string;
  readonly type: string;
}

/** A download waits this long to be taken; its file is deleted after. */
const TTL_MS = 10 * 60_000;

export class Downloads {
  readonly #offered = new Map<string, Download & { timer: NodeJS.Timeout }>();

  /** Offer a file; answers the URL path it is downloaded from. */
  offer(download: Download): string {
    const token = randomBytes(24).toString('base64url');
    const timer = setTimeout(() => this.#drop(token), TTL_MS);
    timer.unref();
    this.#offered.set(token, { ...download, timer });
    return `/downloads/${token}`;
  }

  /** The file behind a token, once: a second request finds nothing. The caller deletes it when sent. */
  take(token: string): Download | null {
    const offered = this.#offered.get(token);
    if (!offered) return null;
    clearTimeout(offered.timer);
    this.#offered.delete(token);
    return { path: offered.path, name: offered.name, type: offered.type };
  }

  #drop(token: string): void {
    const offered = this.#offered.get(token);
    if (!offered) return;
    this.#offered.delete(token);
    rmSync(offered.path, { force: true });
  }
}
