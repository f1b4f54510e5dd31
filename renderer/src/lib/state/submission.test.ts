import { describe, expect, it } from 'vitest';
import { err, ok, type Result } from '../../../../common/result';
import { deferred } from '../testing/fake-transport';
import { Submission } from './submission.svelte';

describe('Submission', () => {
  it('is pending while its request runs, and answers whether it worked', async () => {
    const submission = new Submission();
    const answer = deferred<Result<null>>();
    expect(submission.begin()).toBe(true);
    const sent = submission.send(() => answer.promise);
    expect(submission.pending).toBe(true);
    answer.resolve(ok(null));
    expect(await sent).toBe(true);
    expect(submission.pending).toBe(false);
    expect(submission.failure).toBeNull();
  });

  it('runs one request at a time', async () => {
    const submission = new Submission();
    const answer = deferred<Result<null>>();
    let calls = 0;
    const first = submission.send(() => {
      calls++;
      return answer.promise;
    });
    expect(submission.begin()).toBe(false);
    expect(await submission.send(async () => (calls++, ok(null)))).toBe(false);
    answer.resolve(ok(null));
    await first;
    expect(calls).toBe(1);
  });

  it('keeps a failure to show until the next attempt begins', async () => {
    const submission = new Submission();
    expect(await submission.send(async () => err('conflict', 'That name is taken.'))).toBe(false);
    expect(submission.failure?.message).toBe('That name is taken.');
    expect(submission.pending).toBe(false);
    expect(submission.begin()).toBe(true);
    expect(submission.failure).toBeNull();
  });

  it('is no longer pending when its request throws', async () => {
    const submission = new Submission();
    await expect(submission.send(() => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(submission.pending).toBe(false);
  });
});
