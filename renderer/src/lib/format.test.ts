import { describe, expect, it } from 'vitest';
import { formatBytes, formatDuration, sentence, shortHash } from './format';

describe('formatting', () => {
  it('says sizes, durations and hashes as people read them', () => {
    expect(formatBytes(812)).toBe('812 bytes');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(40 * 1024 * 1024)).toBe('40.0 MiB');
    expect(formatBytes(512 * 1024 * 1024)).toBe('512 MiB');
    expect(formatDuration(4.4)).toBe('4 s');
    expect(formatDuration(185)).toBe('3 min 5 s');
    expect(formatDuration(3900)).toBe('1 h 5 min');
    expect(shortHash('a'.repeat(64))).toBe(`${'a'.repeat(12)}…`);
  });
});

describe('sentence', () => {
  it('capitalises a schema message and ends it with a full stop once', () => {
    expect(sentence(' must not be empty ')).toBe('Must not be empty.');
    expect(sentence('Too long!')).toBe('Too long!');
  });
});
