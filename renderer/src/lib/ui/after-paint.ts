/**
 * Resolves once the next frame is painted: a task posted from its animation frame runs after that
 * frame's style, layout and paint. At once where nothing paints (no `requestAnimationFrame`: unit
 * tests), so callers need not know.
 */
export function afterPaint(): Promise<void> {
  if (typeof requestAnimationFrame !== 'function') return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}
