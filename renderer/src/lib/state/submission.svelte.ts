import type { BridgeError, Result } from '../../../../common/result';

/**
 * A dialog's submit cycle, once for every dialog: one request at a time (a second Enter while one is
 * under way does nothing), `pending` while it runs (the submit button's spinner), and the failure
 * kept to show in the dialog while what was typed stays, cleared when the user tries again.
 *
 *     if (!submission.begin()) return;          // one is under way
 *     if (!valid) return;                       // the dialog's own checks
 *     if (await submission.send(() => onsave(value))) dialog.close();
 */
export class Submission {
  pending = $state(false);
  failure = $state.raw<BridgeError | null>(null);

  /** A new attempt: false while one is under way; otherwise the last failure is cleared. */
  begin(): boolean {
    if (this.pending) return false;
    this.failure = null;
    return true;
  }

  /** Sends; true when it worked (the dialog closes), false when it failed (kept in `failure`) or one was already under way. */
  async send(request: () => Promise<Result<unknown>>): Promise<boolean> {
    if (this.pending) return false;
    this.pending = true;
    try {
      const result = await request();
      if (!result.ok) this.failure = result.error;
      return result.ok;
    } finally {
      this.pending = false;
    }
  }
}
