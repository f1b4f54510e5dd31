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

/** Text fields keep their own keys: Alt+← moves by word on macOS, and a field may use any of these. */
function inField(target: EventTarget | null): boolean {
  const el = target as (HTMLElement & { isContentEditable?: boolean }) | null;
  const tag = el?.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el?.isContentEditable === true;
}

/**
 * Back and Forward from the keyboard and the mouse's side buttons, walking the router's entries.
 * Each handled event is cancelled: Chromium would otherwise also walk the window's history itself
 * (the same entries), moving twice.
 */
export function bindHistoryInput(win: Window, router: Pick<Router, 'back' | 'forward'>, mac = isMac(win.navigator)): () => void {
  const key = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.repeat || event.isComposing || inField(event.target)) return;
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
    // The move happens on the button's release, as in browsers; the press is only cancelled.
    if (event.type === 'mouseup') router[event.button === BACK_BUTTON ? 'back' : 'forward']();
  };
  win.addEventListener('keydown', key);
  win.addEventListener('mousedown', mouse);
  win.addEventListener('mouseup', mouse);
  return () => {
    win.removeEventListener('keydown', key);
    win.removeEventListener('mousedown', mouse);
    win.removeEventListener('mouseup', mouse);
  };
}
