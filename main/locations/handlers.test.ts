import { describe, expect, it } from 'vitest';
import { openCache } from '../cache/cache';
import type { BackendContext } from '../backend/context';
import { isTreeHead, readAheadJobs } from '../fleet/jobs';
import { locationsHandlers } from './handlers';

describe('the tree channels', () => {
  it('ask the cache for a head and parts exactly as the tree reader reads them ahead, and the head first (it keeps answers by job and arguments)', async () => {
    const cache = openCache(':memory:');
    cache.prepare("INSERT INTO organizations (id, name) VALUES ('o1', 'One')").run();
    const asked: { job: string; args: unknown[] }[] = [];
    const connection = { cache, readCache: (job: string, ...args: unknown[]) => (asked.push({ job, args }), Promise.resolve('{}')) };
    const handlers = locationsHandlers({ connection, events: { emit: () => undefined } } as unknown as BackendContext);
    await handlers['locations.treeColumns']({ orgId: 'o1', parts: false });
    await handlers['locations.treeParts']({ orgId: 'o1' });
    expect(asked).toEqual(readAheadJobs(cache));
    expect(asked.map((a) => isTreeHead(a.job, a.args))).toEqual([true, false]);
    await handlers['locations.treeColumns']({ orgId: 'o1' });
    expect(isTreeHead(asked[2]!.job, asked[2]!.args)).toBe(false);
  });
});
