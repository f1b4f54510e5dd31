import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { icons } from '../../renderer/src/lib/ui/icons';

/**
 * index.html's sprite draws the icons of the fleet tree's rows that main writes into the window's
 * frame (main/ui/fleet-frame.ts) before the app has loaded; the app then draws the same rows with
 * renderer/src/lib/ui/icons.ts. Held equal, so the icons do not change as the app takes over.
 */
describe("index.html's sprite", () => {
  const index = readFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'index.html'), 'utf8');
  const symbol = (id: string) => {
    const match = new RegExp(`<symbol id="${id}" viewBox="([^"]+)">(.*?)</symbol>`).exec(index);
    return match ? { viewBox: match[1], paths: [...match[2]!.matchAll(/<path d="([^"]+)" \/>/g)].map((m) => m[1]) } : null;
  };

  it.each(['building', 'mapPin', 'robot', 'cpu', 'search'] as const)('has the app’s %s icon', (name) => {
    expect(symbol(`boot-icon-${name}`)).toEqual({ viewBox: '0 0 24 24', paths: icons[name] });
  });

  it('has the tree’s chevron, as FleetTree.svelte draws it', () => {
    const tree = readFileSync(join(import.meta.dirname, '..', '..', 'renderer', 'src', 'features', 'fleet', 'FleetTree.svelte'), 'utf8');
    const chevron = symbol('boot-icon-chevron');
    expect(chevron?.viewBox).toBe('0 0 16 16');
    expect(tree).toContain(`<svg viewBox="0 0 16 16" width="12" height="12"><path d="${chevron?.paths[0]}"`);
  });
});
