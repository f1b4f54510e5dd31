/**
 * index.html's frame of the shell, and when it gives the window to the app. Main draws the fleet
 * tree's top rows into the frame when the profile has them stored (main/ui/fleet-frame.ts): the window
 * shows the tree before the app's code has loaded. Such a frame stays on top of the mounted app until
 * the app's own tree is drawn (FleetApp.treeShown), so the window goes from the stored rows straight
 * to the live ones, never through the app's "Loading the fleet…"; or until the user presses a key or
 * a pointer (the app, not a picture, should take it), or FRAME_COVER_MS has passed. A plain frame
 * goes at once. Which of these ended it is a performance mark (`fleet-frame:<reason>`), for traces.
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
  /** The frame goes and the app is usable. Safe to call again. */
  readonly uncover: (reason: UncoverReason) => void;
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
  let done = false;
  const input = (): void => uncover('input');
  const timer = setTimeout(() => uncover('timeout'), coverMs);
  const uncover = (reason: UncoverReason): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    removeEventListener('keydown', input, true);
    removeEventListener('pointerdown', input, true);
    frame.remove();
    root.inert = false;
    performance.mark(`fleet-frame:${reason}`);
  };
  // Captured at the window, before the app's own listeners: the key or click then reaches the app.
  addEventListener('keydown', input, true);
  addEventListener('pointerdown', input, true);
  return { root, uncover };
}
