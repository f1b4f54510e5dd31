/**
 * Remembers where the main window was. Restored only where it can still be seen: a monitor that was
 * unplugged since, or a resolution that shrank, must not open the app off screen.
 */
import { readFileSync } from 'node:fs';
import { screen, type BrowserWindow, type Rectangle } from 'electron';
import { z } from 'zod';
import { writeFileAtomic } from '../fs/atomic';

export const WINDOW_STATE_FILE = 'window-state.json';
export const DEFAULT_SIZE = { width: 1280, height: 800 } as const;
export const MIN_SIZE = { width: 800, height: 560 } as const;

/** What the window is created with: a position only when the saved one is still visible, else centered. */
export interface InitialWindowState {
  readonly bounds: { readonly x?: number; readonly y?: number; readonly width: number; readonly height: number };
  readonly isMaximized: boolean;
}

const savedState = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  isMaximized: z.boolean(),
});
type SavedState = z.infer<typeof savedState>;

// How much of the window's top edge must lie on one display to count as visible: enough of the
// title bar to grab and drag it back, which is all a user needs to recover the window.
const GRAB_WIDTH = 100;
const GRAB_HEIGHT = 24;

function overlap(aStart: number, aLength: number, bStart: number, bLength: number): number {
  return Math.max(0, Math.min(aStart + aLength, bStart + bLength) - Math.max(aStart, bStart));
}

/** Whether the top strip of `bounds` can be grabbed on one of `workAreas`. */
export function isVisibleOn(bounds: Rectangle, workAreas: readonly Rectangle[]): boolean {
  return workAreas.some(
    (area) =>
      overlap(bounds.x, bounds.width, area.x, area.width) >= Math.min(GRAB_WIDTH, bounds.width) &&
      overlap(bounds.y, GRAB_HEIGHT, area.y, area.height) >= GRAB_HEIGHT,
  );
}

function defaultState(primary: Rectangle): InitialWindowState {
  return {
    bounds: { width: Math.min(DEFAULT_SIZE.width, primary.width), height: Math.min(DEFAULT_SIZE.height, primary.height) },
    isMaximized: false,
  };
}

function readSaved(file: string, log: (message: string) => void): SavedState | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null; // first launch
  }
  try {
    const parsed = savedState.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON; reported below like any other unusable content
  }
  log(`window-state: ignoring unreadable ${file}`);
  return null;
}

/** The state to open the window with. Needs the app to be ready (it asks `screen`). */
export function loadWindowState(file: string, log: (message: string) => void = () => {}): InitialWindowState {
  const primary = screen.getPrimaryDisplay().workArea;
  const saved = readSaved(file, log);
  if (!saved) return defaultState(primary);
  const bounds = { x: saved.x, y: saved.y, width: saved.width, height: saved.height };
  if (!isVisibleOn(bounds, screen.getAllDisplays().map((d) => d.workArea))) return { ...defaultState(primary), isMaximized: saved.isMaximized };
  return { bounds, isMaximized: saved.isMaximized };
}

export interface TrackOptions {
  /** A resize drag fires dozens of events a second; only the settled bounds are worth a write. */
  readonly debounceMs?: number;
  readonly log?: (message: string) => void;
}

/** Saves `window`'s state after it moves or resizes (debounced) and when it closes. */
export function trackWindowState(window: BrowserWindow, file: string, options: TrackOptions = {}): void {
  const debounceMs = options.debounceMs ?? 500;
  const log = options.log ?? (() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;

  const save = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (window.isDestroyed()) return;
    // Normal bounds, not the maximized ones, so un-maximizing after a restart returns to the user's size.
    const { x, y, width, height } = window.getNormalBounds();
    try {
      // Atomic: the next launch reads the old or the new state, never half of one.
      writeFileAtomic(file, JSON.stringify({ x, y, width, height, isMaximized: window.isMaximized() } satisfies SavedState));
    } catch (e) {
      log(`window-state: could not save ${file}: ${String(e)}`); // losing the position is no reason to fail
    }
  };
  const later = (): void => {
    clearTimeout(timer);
    timer = setTimeout(save, debounceMs);
  };

  window.on('resize', later);
  window.on('move', later);
  window.on('maximize', later);
  window.on('unmaximize', later);
  window.on('close', save);
  window.on('closed', () => clearTimeout(timer));
}
