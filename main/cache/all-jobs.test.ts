import { describe, expect, it } from 'vitest';
import { cacheJobs, jobRecords, READ_JOBS } from './all-jobs';

describe('the merged cache jobs', () => {
  it('takes every domain record whole: no two records name the same job', () => {
    const names = jobRecords.flatMap((record) => Object.keys(record));
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(cacheJobs).sort()).toEqual([...names].sort());
  });

  it('names only jobs that exist as reads', () => {
    for (const job of READ_JOBS) expect(Object.keys(cacheJobs)).toContain(job);
  });
});
