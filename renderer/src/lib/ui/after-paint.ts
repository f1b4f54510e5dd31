/**
 * Resolves once the next frame is painted: a task posted from its animation frame runs after that
 * frame's style, layout and paint. A hidden window paints no frames (a background tab, a minimized
 * window), so it resolves after 100 ms at most (timers run there, throttled) rather than never; at
 * once where nothing paints (no `requestAnimationFrame`: unit tests), so callers need not know.
 */
export function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 100);
    requestAnimationFrame(() =>
      setTimeout(() => {
        clearTimeout(timer);
        resolve();
      }, 0),
    );
  });
}
