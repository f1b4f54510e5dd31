import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate } from './menu';

vi.mock('electron', async () => (await import('../../test/electron/fake-electron')).electronModule);

function roles(items: readonly MenuItemConstructorOptions[]): string[] {
  return items.flatMap((item) => [
    ...(item.role ? [item.role] : []),
    ...(Array.isArray(item.submenu) ? roles(item.submenu as MenuItemConstructorOptions[]) : []),
  ]);
}

describe('application menu', () => {
  it('has the standard menus', () => {
    const mac = roles(buildMenuTemplate({ platform: 'darwin', isPackaged: true, appName: 'Fleet Desk' }));
    expect(mac.slice(0, 3)).toEqual(['appMenu', 'fileMenu', 'editMenu']);
    expect(mac).toEqual(expect.arrayContaining(['windowMenu', 'help', 'zoomIn', 'togglefullscreen']));
    const linux = roles(buildMenuTemplate({ platform: 'linux', isPackaged: true, appName: 'Fleet Desk' }));
    expect(linux).not.toContain('appMenu');
    expect(linux).toEqual(expect.arrayContaining(['fileMenu', 'editMenu', 'windowMenu', 'help', 'about']));
  });

  it('offers reload and devtools only when not packaged', () => {
    for (const platform of ['darwin', 'win32', 'linux'] as const) {
      const dev = roles(buildMenuTemplate({ platform, isPackaged: false, appName: 'Fleet Desk' }));
      expect(dev).toEqual(expect.arrayContaining(['reload', 'forceReload', 'toggleDevTools']));
      const release = roles(buildMenuTemplate({ platform, isPackaged: true, appName: 'Fleet Desk' }));
      for (const role of ['reload', 'forceReload', 'toggleDevTools', 'viewMenu']) expect(release, platform).not.toContain(role);
    }
  });
});
