/**
 * index.html's frame of the shell, and when it gives the window to the app. Main draws the fleet
 * tree's top rows into the frame when the profile has them stored (main/ui/fleet-frame.ts): the window
 * shows the tree before the app's code has loaded. Such a frame stays on top of the mounted app until
 * the app has drawn its own tree (FleetApp.treeShown, or FRAME_COVER_MS has passed), so the window
 * goes from the stored rows straight to the live ones, never through the app's "Loading the
 * fleet…". A plain frame goes at once.
 */

/**
 * The longest the frame covers the app. The app's tree waits for each organization's rows (at most
 * 5 s: app.svelte.ts); the rows the frame shows are a run old, so past this the app's own state
 * (loading, or an error that says why) is the truer picture.
 */
export const FRAME_COVER_MS = 1_500;

export interface FrameTakeover {
  /** The frame goes and the app is usable. Safe to call again. */
  readonly uncover: () => void;
  /** Once the app is mounted: what it drew is inert under the frame, for at most `ms`. */
  readonly covering: (ms: number) => void;
}

/** Takes index.html's frame off `target` (the app's mount point), now or once the app has drawn. */
export function takeOverFrame(target: HTMLElement): FrameTakeover {
  const frame = target.querySelector<HTMLElement>(':scope > .boot-shell');
  if (!frame?.querySelector('.boot-rows')) {
    target.replaceChildren();
    return { uncover: () => undefined, covering: () => undefined };
  }
  frame.classList.add('covering');
  let covered: HTMLElement[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const uncover = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    frame.remove();
    for (const node of covered) node.inert = false;
  };
  return {
    uncover,
    covering(ms) {
      if (done) return;
      // Under the frame, a Tab or a click must not reach controls nobody can see.
      covered = [...target.children].filter((node): node is HTMLElement => node !== frame && node instanceof HTMLElement);
      for (const node of covered) node.inert = true;
      timer = setTimeout(uncover, ms);
    },
  };
}
