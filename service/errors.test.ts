import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ERROR_REASON_KEY, FleetError, logOnce, Reason, toStatus } from './errors';

const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

describe('toStatus', () => {
  it('answers RESOURCE_EXHAUSTED saying what to free for a full disk or database, and for running out of descriptors; never INTERNAL', () => {
    const log: string[] = [];
    const sink = (line: string) => log.push(line);
    for (const [error, reason, words] of [
      [errno('ENOSPC'), Reason.DISK_FULL, /disk is full: free space/],
      [errno('EDQUOT'), Reason.DISK_FULL, /raise its quota/],
      [Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), Reason.DISK_FULL, /disk is full/],
      [errno('EMFILE'), Reason.OUT_OF_FILE_DESCRIPTORS, /no file descriptors left.*ulimit -n/],
      [errno('ENFILE'), Reason.OUT_OF_FILE_DESCRIPTORS, /no file descriptors left/],
    ] as const) {
      const answer = toStatus(error, 'AppService/UploadModuleFile', sink);
      expect(answer.code).toBe(status.RESOURCE_EXHAUSTED);
      expect(answer.details).toMatch(words);
      expect(answer.metadata?.get(ERROR_REASON_KEY)).toEqual([reason]);
    }
    // Each condition logged once by one service's log (the later DISK_FULL and ENFILE came within the minute).
    expect(log).toHaveLength(2);
  });

  it('still answers INTERNAL for anything else, and a FleetError as it is', () => {
    const log: string[] = [];
    expect(toStatus(new Error('bug'), 'M', (l) => log.push(l)).code).toBe(status.INTERNAL);
    expect(toStatus(new FleetError(status.NOT_FOUND, Reason.MODULE_NOT_FOUND, 'no'), 'M', (l) => log.push(l)).code).toBe(status.NOT_FOUND);
    expect(log).toHaveLength(1);
  });

  it('answers a message quoting the caller a lone surrogate with U+FFFD in its place (grpc-js cannot encode it)', () => {
    const answer = toStatus(new FleetError(status.INVALID_ARGUMENT, Reason.CONFIG_INVALID, "the config is not valid JSON: Unexpected token '\uD800'"), 'M', () => undefined);
    expect(answer.details).toBe("the config is not valid JSON: Unexpected token '\uFFFD'");
    expect(() => encodeURIComponent(answer.details)).not.toThrow();
  });
});

describe('logOnce', () => {
  it('logs a persisting condition once a minute, saying how often it came meanwhile', () => {
    const log: string[] = [];
    const sink = (line: string) => log.push(line);
    for (let i = 0; i < 5; i++) logOnce(sink, 'DISK_FULL', 'disk full', 1_000 + i);
    logOnce(sink, 'OTHER', 'other', 1_000);
    logOnce(sink, 'DISK_FULL', 'disk full', 61_001);
    expect(log).toEqual(['disk full', 'other', 'disk full [and 4 more times in the last 60 s]']);
  });
});
