/**
 * index.html's frame of the shell, and when it gives the window to the app. Main draws the fleet
 * tree's top rows into the frame when the profile has them stored (main/ui/fleet-frame.ts): the window
 * shows the tree before the app's code has loaded. Such a frame stays on top of the mounted app until
 * the app's own tree is drawn (FleetApp.treeShown), so the window goes from the stored rows straight
 * to the live ones, never through the app's "Loading the fleet…"; or until the user presses a key or
 * a pointer outside its rows, or scrolls (the app, not a picture, should take it), or FRAME_COVER_MS
 * has passed.
 * A plain frame goes at once. Which of these ended it is a performance mark (`fleet-frame:<reason>`),
 * for traces; when it went by time, the app's tree drawn after is one too (`fleet-frame:tree-late`):
 * how much longer than FRAME_COVER_MS this launch's app took.
 *
 * A press on one of the frame's rows once the app's code runs is not lost: the row shows selected at
 * once, and the press is made again on the app's row of the same index, kind and name once the app's tree
 * is drawn — a row opens its page, a chevron expands or collapses — unless the user pressed or
 * scrolled anything else meanwhile, or the frame went by time FRAME_COVER_MS before
 * (`fleet-frame:replayed` marks it). A press before the code runs meets no listener.
 */

/**
 * The longest the frame covers the app. The app's tree waits for each organization's rows (at most
 * 5 s: app.svelte.ts); the rows the frame shows are a run old, so past this the app's own state
 * (loading, or an error that says why) is the truer picture.
 */
export const FRAME_COVER_MS = 1_500;

/** Why the frame went. */
export type UncoverReason = 'tree' | 'input' | 'timeout' | 'failed';

export interface FrameTakeover {
  /** Where the app mounts: inert while the frame covers it. */
  readonly root: HTMLElement;
  /**
   * The frame goes and the app is usable. Safe to call again. At 'tree' (the app's tree is in the
   * DOM), a press kept from the frame's rows is made on the app's row, even after the frame went by
   * time.
   */
  readonly uncover: (reason: UncoverReason) => void;
}

/** What the user does that the frame answers: a key, a pointer, a scroll (wheel) all give the window to the app. */
const INPUT_EVENTS = ['keydown', 'pointerdown', 'wheel'] as const;

/** A press on one of the frame's rows: which row of the tree, what it is, and whether on its chevron. */
interface RowPress {
  readonly index: number;
  readonly kind: string;
  readonly name: string;
  readonly toggle: boolean;
}

/** Takes index.html's frame off `target` (the app's mount point), now or once the app has drawn. */
export function takeOverFrame(target: HTMLElement, coverMs = FRAME_COVER_MS): FrameTakeover {
  const frame = target.querySelector<HTMLElement>(':scope > .boot-shell');
  // display: contents (global.css): the app lays out in #app as if mounted there.
  const root = document.createElement('div');
  root.className = 'app-root';
  if (!frame?.querySelector('.boot-rows')) {
    target.replaceChildren(root);
    return { root, uncover: () => undefined };
  }
  frame.classList.add('covering');
  // Under the frame, a Tab or a shortcut must not reach controls nobody can see; that holds for
  // what the app adds later (a dialog) too, as it all lives under this root.
  root.inert = true;
  target.append(root);
  let covering = true;
  let timedOut = false;
  let press: RowPress | null = null;
  const rows = () => [...frame.querySelectorAll<HTMLElement>('.boot-row')];
  // Captured at the window, before the app's own listeners: a key or a click outside the rows
  // then reaches the app; after the frame went, any press means the kept one is no longer wanted.
  const input = (event: Event): void => {
    // The main button only: another one asks for something a picture cannot give (a context menu).
    const row = covering && event.type === 'pointerdown' && (event as PointerEvent).button === 0 && event.target instanceof Element ? event.target.closest<HTMLElement>('.boot-row') : null;
    if (row && frame.contains(row) && event.target instanceof Element) {
      // A chevron's slot is empty on a row that cannot open: a press there is a press on the row.
      const chevron = event.target.closest('.boot-toggle');
      press = { index: rows().indexOf(row), kind: row.dataset.kind ?? '', name: row.dataset.name ?? '', toggle: chevron !== null && chevron.childElementCount > 0 };
      if (!press.toggle) showSelected(row);
      return;
    }
    press = null;
    if (covering) uncover('input');
    else stopListening();
  };
  const showSelected = (row: HTMLElement) => {
    for (const selected of frame.querySelectorAll('.boot-row-in.selected')) selected.classList.remove('selected');
    row.querySelector('.boot-row-in')?.classList.add('selected');
  };
  const stopListening = () => {
    clearTimeout(expiry);
    for (const type of INPUT_EVENTS) removeEventListener(type, input, true);
  };
  const timer = setTimeout(() => uncover('timeout'), coverMs);
  // A press kept past the frame is made only while it is still the last thing the user did recently.
  let expiry: ReturnType<typeof setTimeout> | undefined;
  const uncover = (reason: UncoverReason): void => {
    if (covering) {
      covering = false;
      clearTimeout(timer);
      frame.remove();
      root.inert = false;
      performance.mark(`fleet-frame:${reason}`);
      timedOut = reason === 'timeout';
      if (reason === 'timeout' && press !== null)
        expiry = setTimeout(() => {
          press = null;
          stopListening();
        }, coverMs);
    } else if (reason === 'tree' && timedOut) {
      timedOut = false;
      performance.mark('fleet-frame:tree-late');
    }
    if (reason === 'tree' || reason === 'failed' || press === null) stopListening();
    if (reason === 'tree' && press !== null) replay(root, press);
    if (reason === 'tree' || reason === 'failed') press = null;
  };
  // Passive: the frame never cancels a scroll (the wheel's gives the window to the app).
  for (const type of INPUT_EVENTS) addEventListener(type, input, { capture: true, passive: true });
  return { root, uncover };
}

/**
 * Makes `press` on the app's tree (features/fleet/FleetTree.svelte: its rows are treeitems with
 * their index in the tree, kind and name as data): the row at the same index, if it is the same
 * kind and name — the tree may have changed since the frame's rows were kept, or shows another part
 * of itself (scrolled to the open page's row); then nothing is pressed.
 */
function replay(root: HTMLElement, press: RowPress): void {
  const item = [...root.querySelectorAll<HTMLElement>('[role="treeitem"]')].find((candidate) => candidate.dataset.index === String(press.index));
  if (!item || item.dataset.kind !== press.kind || item.dataset.name !== press.name) return;
  item.focus({ preventScroll: true });
  (press.toggle ? (item.querySelector<HTMLElement>('[data-toggle]') ?? item) : item).click();
  performance.mark('fleet-frame:replayed');
}
