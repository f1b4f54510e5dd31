import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BrowserWindow } from 'electron';
import { fake, FakeBrowserWindow, resetFakeElectron } from '../../test/electron/fake-electron';
import { DEFAULT_SIZE, isVisibleOn, loadWindowState, trackWindowState, WINDOW_STATE_FILE } from './window-state';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

let dir: string;
let file: string;

beforeEach(() => {
  resetFakeElectron();
  dir = mkdtempSync(join(tmpdir(), 'fleet-window-state-'));
  file = join(dir, WINDOW_STATE_FILE);
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

function tracked(bounds = { x: 200, y: 150, width: 1000, height: 700 }, debounceMs = 500) {
  const window = new FakeBrowserWindow();
  window.bounds = bounds;
  trackWindowState(window as unknown as BrowserWindow, file, { debounceMs });
  return window;
}

describe('window state', () => {
  it('defaults to a centered default size on first launch', () => {
    expect(loadWindowState(file)).toEqual({ bounds: { ...DEFAULT_SIZE }, isMaximized: false });
  });

  it('round-trips bounds and maximized through the file, saved on close', () => {
    const window = tracked();
    window.maximized = true;
    window.close();
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ x: 200, y: 150, width: 1000, height: 700, isMaximized: true });
    expect(loadWindowState(file)).toEqual({ bounds: { x: 200, y: 150, width: 1000, height: 700 }, isMaximized: true });
  });

  it('writes once, after moves and resizes settle', () => {
    vi.useFakeTimers();
    const window = tracked(undefined, 300);
    window.emit('resize');
    window.bounds = { x: 220, y: 150, width: 1000, height: 700 };
    window.emit('move');
    vi.advanceTimersByTime(299);
    expect(existsSync(file)).toBe(false);
    window.bounds = { x: 240, y: 160, width: 1100, height: 720 };
    window.emit('resize');
    vi.advanceTimersByTime(300);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ x: 240, y: 160, width: 1100, height: 720 });
  });

  it('writes atomically: no temp file is left beside the state', () => {
    tracked().close();
    expect(readdirSync(dir)).toEqual([WINDOW_STATE_FILE]);
  });

  it('creates the userData folder if it does not exist yet', () => {
    file = join(dir, 'nested', 'userData', WINDOW_STATE_FILE);
    tracked().close();
    expect(existsSync(file)).toBe(true);
  });

  it('resets off-screen bounds (an unplugged monitor) to the default size, centered', () => {
    writeFileSync(file, JSON.stringify({ x: 2500, y: 100, width: 1000, height: 700, isMaximized: false }));
    fake.screen.workAreas = [{ x: 0, y: 0, width: 1920, height: 1040 }, { x: 1920, y: 0, width: 1920, height: 1040 }];
    expect(loadWindowState(file).bounds).toEqual({ x: 2500, y: 100, width: 1000, height: 700 });
    fake.screen.workAreas = [{ x: 0, y: 0, width: 1920, height: 1040 }];
    expect(loadWindowState(file)).toEqual({ bounds: { ...DEFAULT_SIZE }, isMaximized: false });
  });

  it('fits the default size to a small primary display', () => {
    fake.screen.workAreas = [{ x: 0, y: 0, width: 1024, height: 700 }];
    expect(loadWindowState(file).bounds).toEqual({ width: 1024, height: 700 });
  });

  it.each([
    ['not JSON', '{"x": 1,'],
    ['the wrong shape', JSON.stringify({ x: 'left', y: 0, width: 10, height: 10, isMaximized: false })],
    ['negative sizes', JSON.stringify({ x: 0, y: 0, width: -5, height: 10, isMaximized: false })],
    ['null', 'null'],
  ])('survives a corrupt file (%s)', (_name, content) => {
    writeFileSync(file, content);
    const log = vi.fn();
    expect(loadWindowState(file, log)).toEqual({ bounds: { ...DEFAULT_SIZE }, isMaximized: false });
    expect(log).toHaveBeenCalledWith(expect.stringContaining('ignoring'));
  });

  it('does not throw when the state cannot be written', () => {
    file = join(dir, 'missing-parent-is-a-file', WINDOW_STATE_FILE);
    writeFileSync(join(dir, 'missing-parent-is-a-file'), '');
    const log = vi.fn();
    const window = new FakeBrowserWindow();
    trackWindowState(window as unknown as BrowserWindow, file, { log });
    expect(() => window.close()).not.toThrow();
    expect(log).toHaveBeenCalledWith(expect.stringContaining('could not save'));
  });
});

describe('isVisibleOn', () => {
  const area = { x: 0, y: 0, width: 1920, height: 1040 };
  it('needs a grabbable part of the title bar on some display', () => {
    expect(isVisibleOn({ x: 100, y: 100, width: 800, height: 600 }, [area])).toBe(true);
    expect(isVisibleOn({ x: 1850, y: 100, width: 800, height: 600 }, [area])).toBe(false); // 70 px showing
    expect(isVisibleOn({ x: 1800, y: 100, width: 800, height: 600 }, [area])).toBe(true); // 120 px showing
    expect(isVisibleOn({ x: 100, y: -300, width: 800, height: 600 }, [area])).toBe(false); // title bar above the screen
    expect(isVisibleOn({ x: 100, y: 1030, width: 800, height: 600 }, [area])).toBe(false); // title bar below it
    expect(isVisibleOn({ x: -3000, y: 100, width: 800, height: 600 }, [area, { x: -3840, y: 0, width: 3840, height: 2160 }])).toBe(true);
  });
});
