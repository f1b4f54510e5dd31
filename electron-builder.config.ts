/**
 * Release packaging: `npm run dist` (= `electron-vite build && electron-builder --config electron-builder.config.ts`).
 * Installers land in dist/. test/electron/release-config.test.ts checks what this file promises.
 *
 * Build each platform's installers on that platform: @napi-rs/keyring installs only the host's
 * native binary, dmg needs macOS, and Windows' asar integrity data is written wrongly when built
 * elsewhere (electron/electron#44624).
 */
import type { Configuration } from 'electron-builder';

const icon = 'resources/icon.png'; // 512×512: enough for macOS' .icns and Windows' .ico

const config: Configuration = {
  appId: 'app.fleetdesk.desktop',
  productName: 'Fleet Desk',
  // The Linux binary and package name: no space.
  executableName: 'fleet-desk',
  directories: { output: 'dist' },

  // Only what the app loads at run time. Production dependencies (package.json `dependencies`) are
  // added by electron-builder on its own; devDependencies never are.
  files: [
    'package.json',
    'out/**',
    // Browser mode's entry (npm run web) is not part of the desktop app.
    '!out/main/web.js',
    // The window icon main/index.ts loads.
    icon,
    // better-sqlite3's SQLite and C++ sources: it loads a prebuilt binary.
    '!node_modules/better-sqlite3/{deps,src}/**',
    '!node_modules/better-sqlite3/binding.gyp',
  ],
  asar: true,
  // Native modules cannot be loaded from inside an archive: better-sqlite3, @napi-rs/keyring.
  asarUnpack: ['**/*.node'],
  // Both native modules are Node-API prebuilds, which load in Electron as they are: nothing to
  // compile against Electron's headers (which would need a download and a C++ toolchain).
  npmRebuild: false,

  electronFuses: {
    // No ELECTRON_RUN_AS_NODE: the app binary cannot be used as a plain `node`. (Hence the local
    // service runs in a utility process, main/shell/utility-service.ts.)
    runAsNode: false,
    // NODE_OPTIONS / NODE_EXTRA_CA_CERTS cannot inject code or trust into the app.
    enableNodeOptionsEnvironmentVariable: false,
    // --inspect and SIGUSR1 cannot attach a debugger to the main process.
    enableNodeCliInspectArguments: false,
    // file:// gets no more than a browser gives it; the UI is served on app:// (main/shell/app-scheme.ts).
    grantFileProtocolExtraPrivileges: false,
    // app.asar is checked against the hash signed into the app (macOS, Windows; Linux has no such check).
    enableEmbeddedAsarIntegrityValidation: true,
    // Code is loaded from app.asar only, never from a loose app/ folder beside it.
    onlyLoadAppFromAsar: true,
    // Chromium's cookie store is encrypted with the OS keychain's key.
    enableCookieEncryption: true,
  },

  // fleet-desk:// deep links (main/shell/deep-link.ts). This declares the scheme in the macOS
  // bundle's Info.plist and, as MimeType=x-scheme-handler/fleet-desk, in the Linux desktop entry
  // (electron-builder adds it from here; its Exec already ends in %U, which passes the link on).
  // The NSIS installer registers nothing: on Windows the app registers itself when it starts.
  protocols: [{ name: 'Fleet Desk', schemes: ['fleet-desk'] }],

  linux: {
    target: ['AppImage', 'deb'],
    icon,
    category: 'Utility',
    synopsis: 'Desktop fleet manager for robot-fleet operators',
    // deb requires a maintainer; replace with the team's address before publishing. (Its default
    // dependencies already include libsecret-1-0, the Secret Service client the keychain uses.)
    maintainer: 'Fleet Desk maintainers <fleet-desk@invalid>',
  },
  mac: {
    target: ['dmg'],
    icon,
    category: 'public.app-category.developer-tools',
  },
  win: {
    target: ['nsis'],
    icon,
  },
  nsis: {
    oneClick: false,
    allowToChangeInstallationDirectory: true,
  },

  // deb requires a homepage; replace with the project's page before publishing.
  extraMetadata: { homepage: 'https://fleet-desk.invalid/' },
};

export default config;
