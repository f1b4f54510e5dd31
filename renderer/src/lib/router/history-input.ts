import type { Router } from './router.svelte';

/** macOS says ⌘[ / ⌘] (Alt+arrows move by word there); elsewhere Alt+← / Alt+→, as browsers do. */
export function isMac(nav: { readonly platform?: string; readonly userAgent?: string } | undefined = typeof navigator === 'undefined' ? undefined : navigator): boolean {
  return /Mac|iPhone|iPad/.test(nav?.platform ?? '') || /Mac OS X/.test(nav?.userAgent ?? '');
}

/** The shortcuts, for tooltips. */
export function historyKeyHint(mac = isMac()): { readonly back: string; readonly forward: string } {
  return mac ? { back: '⌘[', forward: '⌘]' } : { back: 'Alt+←', forward: 'Alt+→' };
}

/** Mouse buttons 3 and 4 are the side buttons: Back and Forward. */
const BACK_BUTTON = 3;
const FORWARD_BUTTON = 4;

/** Inputs that take typing (not checkboxes, radios or buttons). */
const TYPED = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'datetime-local', 'month', 'time', 'week', '']);

/** Text fields keep their own keys: Alt+← moves by word on macOS, and a field may use any of these. */
function inField(target: EventTarget | null): boolean {
  const el = target as (HTMLElement & { isContentEditable?: boolean; type?: string }) | null;
  const tag = el?.tagName;
  if (tag === 'INPUT') return TYPED.has(el?.type ?? '');
  return tag === 'TEXTAREA' || tag === 'SELECT' || el?.isContentEditable === true;
}

/** A modal dialog is open: the page under it must not change (what the dialog edits would go). */
function dialogOpen(win: Window): boolean {
  return typeof win.document?.querySelector === 'function' && win.document.querySelector('dialog[open]') !== null;
}

/**
 * Back and Forward from the keyboard and the mouse's side buttons, walking the router's entries.
 * Each handled event is cancelled: Chromium would otherwise also walk the window's history itself
 * (the same entries), moving twice.
 */
export function bindHistoryInput(win: Window, router: Pick<Router, 'back' | 'forward'>, options: { readonly mac?: boolean; readonly mouse?: boolean } = {}): () => void {
  const mac = options.mac ?? isMac(win.navigator);
  const key = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.repeat || event.isComposing || inField(event.target) || dialogOpen(win)) return;
    const plainAlt = event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey;
    const plainMeta = event.metaKey && !event.ctrlKey && !event.altKey && !event.shiftKey;
    let move: 'back' | 'forward' | null = null;
    if (!mac && plainAlt && event.key === 'ArrowLeft') move = 'back';
    else if (!mac && plainAlt && event.key === 'ArrowRight') move = 'forward';
    else if (mac && plainMeta && (event.code === 'BracketLeft' || event.key === '[')) move = 'back';
    else if (mac && plainMeta && (event.code === 'BracketRight' || event.key === ']')) move = 'forward';
    if (!move) return;
    event.preventDefault();
    router[move]();
  };
  const mouse = (event: MouseEvent) => {
    if (event.button !== BACK_BUTTON && event.button !== FORWARD_BUTTON) return;
    event.preventDefault();
    if (dialogOpen(win)) return;
    // The move happens on the button's release, as in browsers; the press is only cancelled.
    if (event.type === 'mouseup') router[event.button === BACK_BUTTON ? 'back' : 'forward']();
  };
  win.addEventListener('keydown', key);
  if (options.mouse ?? true) {
    win.addEventListener('mousedown', mouse);
    win.addEventListener('mouseup', mouse);
  }
  return () => {
    win.removeEventListener('keydown', key);
    win.removeEventListener('mousedown', mouse);
    win.removeEventListener('mouseup', mouse);
  };
}
