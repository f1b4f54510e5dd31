import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../../common/logs';
import { deferred, fakeBridge, settle } from '../../lib/testing/fake-transport';
import { CHUNK, EMPTY_FILTER, highlight, LogSearch, LogsStore, toggleLevel } from './logs.svelte';

const line = (i: number): LogLine => ({ key: i, partId: 'p1', timeMs: 1_700_000_000_000 + i, level: 'INFO', source: 's', host: 'h', message: `line ${i}`, hasDetail: false, cachedAtMs: 1 });
const state = (total: number) => ({ viewId: 'v1', total, sources: ['s'], oldestMs: 1, newestMs: 2 });

function open(total = 1000) {
  const { transport, bridge } = fakeBridge();
  transport
    .handle('logs.open', state(total))
    .handle('logs.histogram', { startMs: 0, stepMs: 1, counts: [[], [], [], []] })
    .handle('logs.status', {})
    .handle('logs.close', {})
    .handle('logs.rows', (r) => ({ ok: true, value: { from: r.from, total, lines: Array.from({ length: Math.min(r.count, total - r.from) }, (_, i) => line(r.from + i)) } }));
  const store = new LogsStore(bridge);
  const stop = store.follow();
  const view = store.open({ kind: 'part', orgId: 'o', title: 'p', partIds: ['p1'] });
  return { transport, store, view, stop };
}

describe('log filters', () => {
  it('toggle levels keeping "all" as the empty list', () => {
    expect(toggleLevel(EMPTY_FILTER, 'DEBUG')).toEqual(['INFO', 'WARN', 'ERROR']);
    expect(toggleLevel({ ...EMPTY_FILTER, levels: ['INFO', 'WARN', 'ERROR'] }, 'DEBUG')).toEqual([]);
    expect(toggleLevel({ ...EMPTY_FILTER, levels: ['ERROR'] }, 'ERROR')).toEqual([]);
  });

  it('highlight every match, any case', () => {
    expect(highlight('Motor stalled: motor 3', 'MOTOR')).toEqual([
      { text: 'Motor', match: true },
      { text: ' stalled: ', match: false },
      { text: 'motor', match: true },
      { text: ' 3', match: false },
    ]);
    expect(highlight('abc', '')).toEqual([{ text: 'abc', match: false }]);
  });
});

describe('a log view', () => {
  it('reads rows by chunk only where asked, once', async () => {
    const { transport, view } = open();
    await settle();
    expect(view.total).toBe(1000);
    view.ensure(250, 300);
    view.ensure(250, 300);
    await settle();
    expect(transport.callsTo('logs.rows')).toEqual([{ viewId: 'v1', from: CHUNK, count: CHUNK }]);
    expect(view.row(250)?.message).toBe('line 250');
    expect(view.row(10)).toBeUndefined();
  });

  it('draws the lines an update brings without asking, and reads again rows an update skipped over', async () => {
    const { transport, view } = open(100);
    await settle();
    view.ensure(0, 100);
    await settle();
    const before = transport.callsTo('logs.rows').length;
    transport.emit('logs.view', { viewId: 'v1', total: 150, appended: 50, appendedFromMs: 1, lines: Array.from({ length: 50 }, (_, i) => line(100 + i)), linesFrom: 100, movedFrom: null, reset: false, evicted: 0 });
    expect(view.total).toBe(150);
    expect(view.row(149)?.message).toBe('line 149');
    view.ensure(0, 150);
    await settle();
    expect(transport.callsTo('logs.rows').length).toBe(before);
    // 300 more, of which only the last 200 came: the rows in between are read when shown.
    transport.emit('logs.view', { viewId: 'v1', total: 450, appended: 300, appendedFromMs: 1, lines: Array.from({ length: 200 }, (_, i) => line(250 + i)), linesFrom: 250, movedFrom: null, reset: false, evicted: 0 });
    expect(view.row(200)).toBeUndefined();
    view.ensure(150, 250);
    await settle();
    expect(transport.callsTo('logs.rows').slice(before)).toEqual([{ viewId: 'v1', from: 0, count: CHUNK }, { viewId: 'v1', from: CHUNK, count: CHUNK }]);
  });

  it('counts lines that arrive while paused, and forgets rows when main says they moved', async () => {
    const { transport, view } = open(10);
    await settle();
    view.ensure(0, 10);
    await settle();
    view.follow = false;
    transport.emit('logs.view', { viewId: 'v1', total: 12, appended: 2, appendedFromMs: 1, lines: [line(10), line(11)], linesFrom: 10, movedFrom: null, reset: false, evicted: 0 });
    expect(view.unseen).toBe(2);
    transport.emit('logs.view', { viewId: 'v1', total: 13, appended: 1, appendedFromMs: 1, lines: [line(12)], linesFrom: 12, movedFrom: null, reset: true, evicted: 0 });
    expect(view.row(0)).toBeUndefined();
    expect(view.row(12)?.message).toBe('line 12');
  });

  it('forgets only the rows from where lines landed before the end (merged parts interleaving)', async () => {
    const { transport, view } = open(300);
    await settle();
    view.ensure(0, 300);
    await settle();
    transport.emit('logs.view', { viewId: 'v1', total: 302, appended: 2, appendedFromMs: 1, lines: [line(1290), line(1299), line(300), line(301)], linesFrom: 298, movedFrom: 298, reset: false, evicted: 0 });
    expect(view.row(10)?.message).toBe('line 10');
    expect(view.row(298)?.message).toBe('line 1290');
    expect(view.row(301)?.message).toBe('line 301');
    const reads = transport.callsTo('logs.rows').length;
    view.ensure(0, 302);
    await settle();
    // The chunk holding position 298 (200-399) is read again; the first is kept.
    expect(transport.callsTo('logs.rows').slice(reads)).toEqual([{ viewId: 'v1', from: 200, count: CHUNK }]);
  });

  it('drops an answer for rows that a newer filter made stale', async () => {
    const { transport, view } = open(500);
    await settle();
    const slow = deferred<unknown>();
    transport.handle('logs.rows', async (r) => {
      await slow.promise;
      return { ok: true, value: { from: r.from, total: 500, lines: [line(999)] } };
    });
    view.ensure(0, 10);
    transport.handle('logs.filter', state(3));
    await view.setFilter({ text: 'x' });
    slow.resolve(null);
    await settle();
    expect(view.total).toBe(3);
    expect(view.row(0)).toBeUndefined();
  });

  it('counts under the filter that made the count: a filter being applied is not the one the total belongs to', async () => {
    const { transport, view } = open(500);
    await settle();
    const answer = deferred<unknown>();
    transport.handle('logs.filter', async () => {
      await answer.promise;
      return { ok: true, value: state(3) };
    });
    const applying = view.setFilter({ text: 'motor' });
    await settle();
    // Asked for at once (the text box shows it), but the 500 lines shown are still the unfiltered ones.
    expect(view.filter.text).toBe('motor');
    expect(view.applied.text).toBe('');
    expect(view.total).toBe(500);
    answer.resolve(null);
    await applying;
    expect(view.applied.text).toBe('motor');
    expect(view.total).toBe(3);
  });

  it('opens again with the next filter when it could not open (its filter too broad), and applies a filter changed while opening', async () => {
    const { transport, bridge } = fakeBridge();
    const tooBroad = { kind: 'invalid' as const, message: 'Filtering this view by "ms" would take too long: … Type at least 3 characters.' };
    transport
      .handle('logs.open', () => ({ ok: false, error: tooBroad }))
      .handle('logs.filter', state(5))
      .handle('logs.histogram', { startMs: 0, stepMs: 1, counts: [[], [], [], []] })
      .handle('logs.status', {})
      .handle('logs.close', {});
    const store = new LogsStore(bridge);
    const view = store.open({ kind: 'part', orgId: 'o', title: 'p', partIds: ['p1'] }, { ...EMPTY_FILTER, text: 'ms' });
    await settle();
    expect(view.error).toEqual(tooBroad);
    expect(view.viewId).toBeNull();
    transport.handle('logs.open', state(7));
    const opening = view.setFilter({ text: 'ms t' });
    await view.setFilter({ text: 'ms ti' });
    await opening;
    await settle();
    expect(view.error).toBeNull();
    expect(transport.callsTo('logs.open').map((r) => (r as { filter: { text: string } }).filter.text)).toEqual(['ms', 'ms t']);
    expect(transport.callsTo('logs.filter')).toEqual([{ viewId: 'v1', filter: { ...EMPTY_FILTER, text: 'ms ti' } }]);
  });

  it('closes its view in main when another opens or the store stops', async () => {
    const { transport, store, stop } = open();
    await settle();
    store.open({ kind: 'machine', orgId: 'o', title: 'm', partIds: ['p1', 'p2'] });
    await settle();
    expect(transport.callsTo('logs.close')).toEqual([{ viewId: 'v1' }]);
    stop();
    expect(transport.callsTo('logs.close')).toHaveLength(2);
  });
});

describe('the log search', () => {
  it('shows why a search failed (too broad), not the hits of the text before', async () => {
    const { transport, bridge } = fakeBridge();
    const hit = { ...line(1), orgId: 'o', machineId: 'm', machineName: 'rover', partName: 'main' };
    transport.handle('logs.search', { hits: [hit], more: true, tookMs: 1 });
    const search = new LogSearch(bridge);
    await search.search({ text: 'line' });
    expect(search.hits).toEqual([hit]);
    const tooBroad = { kind: 'invalid' as const, message: 'The search for "---" stopped before finding a line: … Make it longer or more specific.' };
    transport.handle('logs.search', () => ({ ok: false, error: tooBroad }));
    await search.search({ text: '-'.repeat(500) });
    expect(search.error).toEqual(tooBroad);
    expect(search).toMatchObject({ hits: [], more: false, tookMs: null });
  });
});
