import type { Component } from 'svelte';
import { describe, expect, it } from 'vitest';
import { memoryHistory } from './history';
import { page, param, routePath, Router, type RouteMatch } from './router.svelte';
import { bindHistoryInput, historyKeyHint, isMac } from './history-input';

const Nothing = (() => ({})) as unknown as Component<{ n?: number }>;

/** A router over memory entries, with what each owner was told. */
function setup(initial = '') {
  const history = memoryHistory(initial);
  const told: string[] = [];
  const saved: string[] = [];
  const router = new Router(history, { save: (p) => saved.push(p), leave: (owner) => told.push(`leave ${owner}`), notFound: (p) => told.push(`not found ${p}`) });
  const enter = (owner: string) => (m: RouteMatch) => void told.push(`enter ${owner} ${JSON.stringify(m.params)}${m.query.size ? ` ?${m.query.toString()}` : ''}`);
  router.register([
    page({ pattern: '/', owner: 'fleet', page: Nothing, props: () => ({}), enter: enter('fleet') }),
    page({ pattern: '/orgs/:orgId/parts/:id', owner: 'fleet', page: Nothing, props: () => ({}), enter: enter('fleet') }),
    page({ pattern: '/orgs/:orgId/parts/:id/logs', owner: 'logs', page: Nothing, props: () => ({}), enter: enter('logs') }),
    page({ pattern: '/orgs/:orgId/training', owner: 'training', page: Nothing, props: () => ({}), enter: enter('training') }),
    page({ pattern: '/orgs/:orgId/training/jobs/:jobId', owner: 'training', page: Nothing, props: () => ({}), enter: enter('training') }),
    page({ pattern: '/registry/items/:itemId', owner: 'registry', page: Nothing, props: () => ({}), enter: enter('registry') }),
    page({ pattern: '/registry/:x', owner: 'registry', page: Nothing, props: () => ({}), enter: enter('registry-any') }),
  ]);
  return { history, router, told, saved };
}

describe('the router', () => {
  it('shows one page at a time: the previous owner leaves only when another owner\'s page comes', async () => {
    const { router, told, saved } = setup();
    await router.start();
    router.go('/orgs/o1/training');
    router.go('/orgs/o1/training/jobs/j%2F1');
    router.go('/orgs/o1/parts/p1/logs?line=42');
    expect(told).toEqual([
      'enter fleet {}',
      'leave fleet',
      'enter training {"orgId":"o1"}',
      'enter training {"orgId":"o1","jobId":"j/1"}',
      'leave training',
      'enter logs {"orgId":"o1","id":"p1"} ?line=42',
    ]);
    expect(saved).toEqual(['/', '/orgs/o1/training', '/orgs/o1/training/jobs/j%2F1', '/orgs/o1/parts/p1/logs?line=42']);
    expect(router.match?.query.get('line')).toBe('42');
    expect(router.match && param(router.match, 'id')).toBe('p1');
  });

  it('Back and Forward walk the entries and enter each page again; a new page drops what was forward', async () => {
    const { router, history, told } = setup();
    await router.start();
    router.go('/orgs/o1/training');
    router.go('/registry/items/a');
    expect([router.canGoBack, router.canGoForward]).toEqual([true, false]);
    router.back();
    expect(router.path).toBe('/orgs/o1/training');
    expect([router.canGoBack, router.canGoForward]).toEqual([true, true]);
    router.back();
    expect(router.path).toBe('/');
    expect(router.canGoBack).toBe(false);
    router.back(); // at the first entry: nothing (the app never leaves itself)
    expect(history.at).toBe(0);
    router.forward();
    expect(router.path).toBe('/orgs/o1/training');
    router.go('/orgs/o1/parts/p1');
    expect(router.canGoForward).toBe(false);
    expect(history.entries).toEqual(['/', '/orgs/o1/training', '/orgs/o1/parts/p1']);
    expect(told.filter((t) => t.startsWith('enter training'))).toHaveLength(3);
  });

  it('going to the page shown adds no entry; replace swaps the current one', async () => {
    const { router, history } = setup();
    await router.start();
    router.go('/orgs/o1/training/jobs/j1');
    router.go('/orgs/o1/training/jobs/j1');
    router.replace('/orgs/o1/training');
    expect(history.entries).toEqual(['/', '/orgs/o1/training']);
    router.back();
    expect(router.path).toBe('/');
  });

  it('a start shows the address\'s page, else the fallback\'s, else the start page', async () => {
    const there = setup('/orgs/o1/training');
    await there.router.start(() => '/registry/items/x');
    expect(there.router.path).toBe('/orgs/o1/training');
    const remembered = setup();
    await remembered.router.start(() => Promise.resolve('/registry/items/x'));
    expect(remembered.router.path).toBe('/registry/items/x');
    expect(remembered.history.entries).toEqual(['/registry/items/x']);
    const stale = setup();
    await stale.router.start(() => '/gone/page');
    expect(stale.router.path).toBe('/');
    const failing = setup();
    await failing.router.start(() => Promise.reject(new Error('no cache')));
    expect(failing.router.path).toBe('/');
  });

  it('a page the user went to while the remembered one was being read wins', async () => {
    const { router } = setup();
    let answer: (path: string) => void = () => undefined;
    const started = router.start(() => new Promise<string>((resolve) => (answer = resolve)));
    router.go('/orgs/o1/training');
    answer('/registry/items/x');
    await started;
    expect(router.path).toBe('/orgs/o1/training');
  });

  it('going to an address no page has says so and changes nothing; a bad escape is unknown; a typed one shows the start in its place', async () => {
    const { router, told, history } = setup();
    await router.start();
    router.go('/orgs/o1/training');
    router.go('/orgs/o1/nothing');
    router.go('/orgs/%E0%A4%A/training');
    expect(router.path).toBe('/orgs/o1/training');
    expect(told.filter((t) => t.startsWith('not found'))).toEqual(['not found /orgs/o1/nothing', 'not found /orgs/%E0%A4%A/training']);
    expect(history.entries).toEqual(['/', '/orgs/o1/training']);
    const typed = setup('/no/such');
    await typed.router.start();
    expect(typed.router.path).toBe('/');
    expect(typed.history.entries).toEqual(['/']);
  });

  it('a page gone to before the start\'s restore answered (a deep link) is the first entry: Back has nowhere to go', async () => {
    const { router, history } = setup();
    let answer: (path: string) => void = () => undefined;
    const started = router.start(() => new Promise<string>((resolve) => (answer = resolve)));
    router.go('/orgs/o1/training');
    answer('/registry/items/x');
    await started;
    expect(history.entries).toEqual(['/orgs/o1/training']);
    expect(router.canGoBack).toBe(false);
    router.go('/registry/items/a');
    router.back();
    expect(router.path).toBe('/orgs/o1/training');
    expect([router.canGoBack, router.canGoForward]).toEqual([false, true]);
  });

  it('another profile starts a new stretch: Back stops there, even the browser\'s own; only the latest restore applies', async () => {
    const { router, history } = setup();
    await router.start();
    router.go('/orgs/o1/training');
    router.go('/orgs/o1/parts/p1');
    let first: (path: string) => void = () => undefined;
    const slow = router.restore(() => new Promise<string>((resolve) => (first = resolve)), { newStretch: true });
    const fast = router.restore(() => '/registry/items/b', { newStretch: true });
    await fast;
    first('/registry/items/a');
    await slow;
    expect(router.path).toBe('/registry/items/b');
    expect(router.canGoBack).toBe(false);
    router.back();
    expect(router.path).toBe('/registry/items/b');
    history.go(-1); // the browser's Back button: bounced forward again
    expect(router.path).toBe('/registry/items/b');
    expect(history.at).toBe(2);
  });

  it('replace with ifShowing changes the entry only while that page is shown (an action answering late)', async () => {
    const { router } = setup();
    await router.start();
    router.go('/orgs/o1/training/jobs/j1');
    router.replace('/orgs/o1/training', { ifShowing: ['/orgs/o1/training/jobs/j2'] });
    expect(router.path).toBe('/orgs/o1/training/jobs/j1');
    router.replace('/orgs/o1/training', { ifShowing: ['/orgs/o1/training/jobs/j1'] });
    expect(router.path).toBe('/orgs/o1/training');
  });

  it('the most literal pattern wins, whatever the order of registration', async () => {
    const { router } = setup();
    await router.start();
    router.go('/registry/items/a');
    expect(router.match?.route.pattern).toBe('/registry/items/:itemId');
    router.go('/registry/other');
    expect(router.match?.route.pattern).toBe('/registry/:x');
  });

  it('an enter that waits is aborted by the next page', async () => {
    const history = memoryHistory();
    const router = new Router(history);
    const signals: AbortSignal[] = [];
    router.register([
      page({ pattern: '/', owner: 'a', page: Nothing, props: () => ({}) }),
      page({ pattern: '/slow', owner: 'a', page: Nothing, props: () => ({}), enter: (_m, signal) => void signals.push(signal) }),
    ]);
    await router.start();
    router.go('/slow');
    router.go('/');
    expect(signals[0]?.aborted).toBe(true);
    expect(() => router.register([page({ pattern: '/', owner: 'b', page: Nothing, props: () => ({}) })])).toThrow('registered twice');
  });

  it('a page that may not be left (unsaved changes kept) stops every move, the browser\'s own Back undone', async () => {
    const history = memoryHistory();
    let keep = false;
    const router = new Router(history, { mayLeave: () => !keep });
    router.register(['/', '/a', '/b'].map((pattern) => page({ pattern, owner: 'x', page: Nothing, props: () => ({}) })));
    await router.start();
    router.go('/a');
    router.go('/b');
    keep = true;
    router.go('/a');
    router.replace('/a');
    router.back();
    router.forward();
    expect(router.path).toBe('/b');
    expect(history.entries).toEqual(['/', '/a', '/b']);
    history.go(-1); // the browser's Back: undone, the page stays
    expect(router.path).toBe('/b');
    expect(history.at).toBe(2);
    keep = false;
    router.back();
    expect(router.path).toBe('/a');
  });

  it('a page whose enter fails says so', async () => {
    const failures: string[] = [];
    const router = new Router(memoryHistory(), { failed: (path, e) => failures.push(`${path}: ${(e as Error).message}`) });
    router.register([
      page({ pattern: '/', owner: 'a', page: Nothing, props: () => ({}) }),
      page({ pattern: '/throws', owner: 'a', page: Nothing, props: () => ({}), enter: () => { throw new Error('boom'); } }),
      page({ pattern: '/rejects', owner: 'a', page: Nothing, props: () => ({}), enter: () => Promise.reject(new Error('late boom')) }),
    ]);
    await router.start();
    const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
    router.go('/throws');
    await tick();
    router.go('/rejects');
    await tick();
    expect(router.path).toBe('/rejects');
    expect(failures).toEqual(['/throws: boom', '/rejects: late boom']);
  });

  it('routePath encodes parameters and leaves empty query values out', () => {
    expect(routePath('/orgs/:orgId/parts/:id', { orgId: 'a b', id: 'p/1' })).toBe('/orgs/a%20b/parts/p%2F1');
    expect(routePath('/registry', {}, { org: undefined })).toBe('/registry');
    expect(routePath('/registry', {}, { org: 'o 1' })).toBe('/registry?org=o+1');
    expect(() => routePath('/orgs/:orgId', {})).toThrow(':orgId');
  });
});

describe('Back and Forward from the keyboard and the mouse', () => {
  /** Enough of a window for the bindings: listeners by type, dispatched by hand. */
  function fakeWindow() {
    const listeners = new Map<string, ((e: Event) => void)[]>();
    let dialog: object | null = null;
    const win = {
      document: { querySelector: (selector: string) => (selector === 'dialog[open]' ? dialog : null) },
      navigator: { platform: 'Linux x86_64', userAgent: 'X11' },
      addEventListener: (type: string, l: (e: Event) => void) => listeners.set(type, [...(listeners.get(type) ?? []), l]),
      removeEventListener: (type: string, l: (e: Event) => void) => listeners.set(type, (listeners.get(type) ?? []).filter((x) => x !== l)),
    } as unknown as Window;
    const fire = (type: string, init: Record<string, unknown>) => {
      let prevented = false;
      const event = { type, defaultPrevented: false, repeat: false, isComposing: false, target: null, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, preventDefault: () => (prevented = true), ...init } as unknown as Event;
      for (const l of listeners.get(type) ?? []) l(event);
      return prevented;
    };
    return { win, fire, count: () => [...listeners.values()].flat().length, openDialog: (open: boolean) => (dialog = open ? {} : null) };
  }

  it('Alt+← / Alt+→ elsewhere, ⌘[ / ⌘] on macOS, the side buttons on release; fields keep their keys', () => {
    const moves: string[] = [];
    const router = { back: () => moves.push('back'), forward: () => moves.push('forward') };
    const { win, fire, count } = fakeWindow();
    const stop = bindHistoryInput(win, router, { mac: false });
    expect(fire('keydown', { key: 'ArrowLeft', altKey: true })).toBe(true);
    fire('keydown', { key: 'ArrowRight', altKey: true });
    fire('keydown', { key: 'ArrowLeft', altKey: true, shiftKey: true }); // a selection shortcut, not Back
    fire('keydown', { code: 'BracketLeft', key: '[', metaKey: true }); // not on Linux
    fire('keydown', { key: 'ArrowLeft', altKey: true, target: { tagName: 'INPUT' } });
    expect(fire('mousedown', { button: 3 })).toBe(true);
    fire('mouseup', { button: 3 });
    fire('mouseup', { button: 4 });
    fire('mouseup', { button: 0 });
    expect(moves).toEqual(['back', 'forward', 'back', 'forward']);
    stop();
    expect(count()).toBe(0);
    const mac = fakeWindow();
    const stopMac = bindHistoryInput(mac.win, router, { mac: true });
    moves.length = 0;
    mac.fire('keydown', { code: 'BracketLeft', key: '[', metaKey: true });
    mac.fire('keydown', { code: 'BracketRight', key: ']', metaKey: true });
    mac.fire('keydown', { key: 'ArrowLeft', altKey: true }); // a word to the left on macOS
    expect(moves).toEqual(['back', 'forward']);
    stopMac();
  });

  it('nothing moves while a modal dialog is open; without the mouse option the side buttons are left alone (Electron: main has them)', () => {
    const moves: string[] = [];
    const router = { back: () => moves.push('back'), forward: () => moves.push('forward') };
    const { win, fire, openDialog } = fakeWindow();
    const stop = bindHistoryInput(win, router, { mac: false, mouse: false });
    openDialog(true);
    fire('keydown', { key: 'ArrowLeft', altKey: true });
    openDialog(false);
    expect(fire('mouseup', { button: 3 })).toBe(false);
    fire('keydown', { key: 'ArrowLeft', altKey: true, target: { tagName: 'INPUT', type: 'checkbox' } });
    expect(moves).toEqual(['back']);
    stop();
  });

  it('says the shortcuts of the platform', () => {
    expect(isMac({ platform: 'MacIntel' })).toBe(true);
    expect(isMac({ platform: 'Win32', userAgent: 'Windows NT' })).toBe(false);
    expect(historyKeyHint(true)).toEqual({ back: '⌘[', forward: '⌘]' });
    expect(historyKeyHint(false)).toEqual({ back: 'Alt+←', forward: 'Alt+→' });
  });
});
