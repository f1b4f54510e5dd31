/**
 * The application menu: the platform's standard roles, so shortcuts (copy, paste, zoom, quit) and
 * the macOS app menu behave as users expect. Reload and devtools exist only in an unpackaged build:
 * in a release, reloading would only lose state, and devtools are a way around the bridge's checks.
 */
import { app, Menu, type MenuItemConstructorOptions } from 'electron';

export interface MenuOptions {
  readonly platform: NodeJS.Platform;
  readonly isPackaged: boolean;
  readonly appName: string;
}

export function buildMenuTemplate({ platform, isPackaged, appName }: MenuOptions): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (mac) template.push({ label: appName, role: 'appMenu' });
  template.push({ role: 'fileMenu' }, { role: 'editMenu' });
  template.push({
    label: 'View',
    submenu: [
      ...(isPackaged ? [] : ([{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as const)),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  });
  template.push({ role: 'windowMenu' });
  // macOS puts "About" in the app menu; elsewhere it belongs under Help.
  template.push({ role: 'help', submenu: mac ? [] : [{ role: 'about' }] });
  return template;
}

export function installApplicationMenu(): void {
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(buildMenuTemplate({ platform: process.platform, isPackaged: app.isPackaged, appName: app.name })),
  );
}
