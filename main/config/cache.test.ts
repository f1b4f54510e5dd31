import { describe, expect, it } from 'vitest';
import { openCache } from '../cache/cache';
import { cachedPartConfig, forgetPart, putPartConfig } from './cache';

const config = (lastUpdated: string, configJson = '{}') => ({ partId: 'p', machineId: 'm', name: 'p-main', configJson, lastUpdated, syncedAt: '2026-05-01T00:00:00.000Z' });

describe('part configs in the cache', () => {
  it('keep the newest answer: a read that comes back after a save does not undo it', () => {
    const db = openCache(':memory:');
    putPartConfig(db, config('2026-05-01T10:00:00.002Z', '{"saved": true}'));
    putPartConfig(db, config('2026-05-01T10:00:00.001Z', '{"late read": true}'));
    expect(cachedPartConfig(db, 'p')?.configJson).toBe('{"saved": true}');
    putPartConfig(db, config('2026-05-01T10:00:00.003Z', '{"next": true}'));
    expect(cachedPartConfig(db, 'p')).toEqual(config('2026-05-01T10:00:00.003Z', '{"next": true}'));
    forgetPart(db, 'p');
    expect(cachedPartConfig(db, 'p')).toBeNull();
  });
});
