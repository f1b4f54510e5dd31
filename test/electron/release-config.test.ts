/**
 * The release configuration (electron-builder.config.ts), checked without running electron-builder
 * (it would download Electron): electron-builder's own schema validation and file matching decide
 * what the installers would contain, and a fresh build of main and preload says what they import.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Configuration } from 'electron-builder';
import { resolveConfig } from 'electron-vite';
import { build, type InlineConfig } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../../electron-builder.config';
import { DEEP_LINK_SCHEME } from '../../main/shell/deep-link-url';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
};

// electron-builder's internals, loaded by path: the same code that decides what a real build packs.
const load = createRequire(import.meta.url);
interface FilterStats {
  isDirectory(): boolean;
}
type Filter = (file: string, stat: FilterStats) => boolean;
interface Matcher {
  readonly patterns: string[];
  createFilter(): Filter;
}
const fileMatcher = load(join(root, 'node_modules', 'app-builder-lib', 'out', 'fileMatcher.js')) as {
  getMainFileMatchers(appDir: string, destination: string, expand: (s: string) => string, platformOptions: object, packager: object, outDir: string, isElectronCompile: boolean): Matcher[];
  getNodeModuleFileMatcher(appDir: string, destination: string, expand: (s: string) => string, platformOptions: object, info: object): Matcher;
  getFileMatchers(config: Configuration, name: 'asarUnpack', destination: string, options: object): Matcher[] | null;
};
const { getConfig, validateConfiguration } = load(join(root, 'node_modules', 'app-builder-lib', 'out', 'util', 'config', 'config.js')) as {
  getConfig(projectDir: string, configPath: string | null, configFromOptions: null): Promise<Configuration>;
  validateConfiguration(config: Configuration, debugLogger: { isEnabled: boolean; add(): void }): Promise<void>;
};

const expand = (s: string) => s;
const file: FilterStats = { isDirectory: () => false };
const info = { projectDir: root, buildResourcesDir: join(root, 'build'), isPrepackedAppAsar: false, config, debugLogger: { isEnabled: false } };
const outDir = join(root, config.directories?.output ?? 'dist');

/** What the app's files (not node_modules) would include, as electron-builder matches them. */
function appFilter(): Filter {
  const [main] = fileMatcher.getMainFileMatchers(root, '/packed', expand, {}, { info }, outDir, false);
  if (!main) throw new Error('electron-builder made no file matcher');
  return main.createFilter();
}
const packed = (path: string): boolean => appFilter()(join(root, path), file);

/** What of a production dependency would be packed. */
function nodeModulePacked(path: string): boolean {
  return fileMatcher.getNodeModuleFileMatcher(root, '/packed', expand, {}, info).createFilter()(join(root, path), file);
}

function unpacked(path: string): boolean {
  const [matcher] = fileMatcher.getFileMatchers(config, 'asarUnpack', '/packed', { macroExpander: expand, customBuildOptions: {}, globalOutDir: outDir, defaultSrc: root }) ?? [];
  return matcher ? matcher.createFilter()(join(root, path), file) : false;
}

/** Every file of the project tree outside node_modules, out, dist and .git, relative to the root. */
function projectFiles(dir = root): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const rel = relative(root, path).split(sep).join('/');
    if (['node_modules', 'out', 'dist', '.git', '.cache', 'test-results', 'playwright-report', '.tmp'].includes(rel)) return [];
    return statSync(path).isDirectory() ? projectFiles(path) : [rel];
  });
}

describe('electron-builder configuration', () => {
  it('is what electron-builder loads for `npm run dist` (through its own TypeScript loader)', async () => {
    const configPath = /--config (\S+)/.exec(pkg.scripts.dist ?? '')?.[1];
    expect(configPath).toBe('electron-builder.config.ts');
    const { files: loadedFiles, ...loaded } = await getConfig(root, configPath ?? null, null);
    const { files, ...rest } = structuredClone(config);
    expect(loaded).toMatchObject(rest as Record<string, unknown>);
    // It wraps a plain list of patterns into one file set.
    const patterns = ([loadedFiles].flat() as (string | { filter?: string | string[] })[]).flatMap((f) => (typeof f === 'string' ? [f] : [f.filter ?? []].flat()));
    expect(patterns).toEqual(files);
  });

  it("passes electron-builder's own schema validation", async () => {
    await expect(validateConfiguration(structuredClone(config), { isEnabled: false, add() {} })).resolves.toBeUndefined();
  });

  it('names the app, and builds AppImage + deb, dmg and nsis with the PNG icon into dist/', () => {
    expect(config).toMatchObject({ appId: expect.stringMatching(/^[a-z0-9]+(\.[a-z0-9-]+)+$/), productName: 'Fleet Desk', directories: { output: 'dist' } });
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    for (const platform of [config.linux, config.mac, config.win]) expect(platform?.icon).toBe('resources/icon.png');
  });

  it('uses an icon of at least 512×512 pixels, as macOS and Windows icon conversion needs', () => {
    const png = readFileSync(join(root, 'resources', 'icon.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    // The IHDR chunk: width and height, big-endian, at bytes 16 and 20.
    expect(png.readUInt32BE(16)).toBeGreaterThanOrEqual(512);
    expect(png.readUInt32BE(20)).toBeGreaterThanOrEqual(512);
  });

  it('sets every fuse', () => {
    expect(config.electronFuses).toStrictEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      grantFileProtocolExtraPrivileges: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
  });

  it('declares the fleet-desk:// scheme, and the Linux desktop entry electron-builder writes handles it', async () => {
    expect(config.protocols).toEqual([{ name: 'Fleet Desk', schemes: [DEEP_LINK_SCHEME] }]);
    // The entry the deb and the AppImage get, computed by electron-builder's own code.
    const { LinuxTargetHelper } = load(join(root, 'node_modules', 'app-builder-lib', 'out', 'targets', 'LinuxTargetHelper.js')) as {
      LinuxTargetHelper: new (packager: object) => { computeDesktopEntry(options: object, exec?: string, extra?: object): Promise<string> };
    };
    const packager = {
      config,
      platformSpecificBuildOptions: config.linux,
      executableName: config.executableName,
      fileAssociations: [],
      appInfo: { productName: config.productName, sanitizedProductName: config.productName, description: 'Desktop fleet manager' },
      info: { metadata: {} },
    };
    const entry = await new LinuxTargetHelper(packager).computeDesktopEntry(config.linux ?? {});
    expect(entry).toMatch(/^MimeType=x-scheme-handler\/fleet-desk;$/m);
    // %U: the launcher hands the link to the app as an argument (main/shell/deep-link-url.ts deepLinkInArgv).
    expect(entry).toMatch(/^Exec=.*fleet-desk"? %U$/m);
  });

  it('flips the fuses through @electron/fuses', () => {
    // electronFuses is applied by app-builder-lib's platformPackager with @electron/fuses' flipFuses.
    const source = readFileSync(join(root, 'node_modules', 'app-builder-lib', 'out', 'platformPackager.js'), 'utf8');
    expect(source).toMatch(/doAddElectronFuses/);
    expect(source).toMatch(/dynamicImport\)\("@electron\/fuses"\)/);
    expect(load(join(root, 'node_modules', '@electron', 'fuses', 'package.json'))).toMatchObject({ name: '@electron/fuses' });
  });

  it('packs the built app, package.json and the window icon', () => {
    for (const path of [
      'package.json',
      pkg.main,
      'out/main/index.js',
      'out/main/service.js',
      'out/main/csp-a1B2c3D4.js',
      'out/preload/index.cjs',
      'out/renderer/index.html',
      'out/renderer/assets/index-a1B2c3D4.js',
      'out/renderer/assets/index-a1B2c3D4.css',
      'out/renderer/assets/icon-a1B2c3D4.svg',
      'resources/icon.png',
    ]) {
      expect(packed(path), path).toBe(true);
    }
    expect(pkg.main).toBe('out/main/index.js');
  });

  it('packs no source, test, doc, proto, config or browser-mode entry', () => {
    for (const path of [
      'out/main/web.js',
      'main/index.ts',
      'main/shell/app-files.test.ts',
      'service/main.ts',
      'renderer/index.html',
      'renderer/src/App.svelte',
      'preload/index.ts',
      'common/bridge.ts',
      'proto/fleet/app/v1/orgs.proto',
      'proto/gen/fleet/app/v1/orgs.ts',
      'test/electron/fake-electron.ts',
      'bench/run.ts',
      'scripts/start.mjs',
      'docs/ARCHITECTURE.md',
      'README.md',
      'resources/icon.svg',
      'electron.vite.config.ts',
      'electron-builder.config.ts',
      'tsconfig.json',
      'eslint.config.js',
      'vitest.config.ts',
      'playwright.config.ts',
      'package-lock.json',
      '.ci/run',
      'dist/linux-unpacked/resources/app.asar',
    ]) {
      expect(packed(path), path).toBe(false);
    }
  });

  it('of the project tree, packs package.json and the icon, nothing else', () => {
    expect(projectFiles().filter(packed).sort()).toEqual(['package.json', 'resources/icon.png']);
  });

  it("leaves better-sqlite3's C sources out of the packed dependency, and keeps its prebuilt binary", () => {
    expect(nodeModulePacked('node_modules/better-sqlite3/deps/sqlite3/sqlite3.c')).toBe(false);
    expect(nodeModulePacked('node_modules/better-sqlite3/src/better_sqlite3.cpp')).toBe(false);
    expect(nodeModulePacked('node_modules/better-sqlite3/binding.gyp')).toBe(false);
    expect(nodeModulePacked('node_modules/better-sqlite3/lib/index.js')).toBe(true);
    expect(nodeModulePacked('node_modules/better-sqlite3/prebuilds/linux-x64.node')).toBe(true);
    expect(nodeModulePacked('node_modules/zod/index.js')).toBe(true);
  });

  it('is an asar with the native modules unpacked, and rebuilds nothing', () => {
    expect(config.asar).toBe(true);
    expect(config.npmRebuild).toBe(false);
    for (const path of [
      'node_modules/better-sqlite3/prebuilds/linux-x64.node',
      'node_modules/better-sqlite3/prebuilds/win32-x64.node',
      'node_modules/better-sqlite3/prebuilds/darwin-arm64.node',
      'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
      'node_modules/@napi-rs/keyring-linux-x64-gnu/keyring.linux-x64-gnu.node',
      'node_modules/@napi-rs/keyring-darwin-arm64/keyring.darwin-arm64.node',
      'node_modules/@napi-rs/keyring-win32-x64-msvc/keyring.win32-x64-msvc.node',
    ]) {
      expect(unpacked(path), path).toBe(true);
    }
    expect(unpacked('out/main/index.js')).toBe(false);
    expect(unpacked('node_modules/better-sqlite3/lib/index.js')).toBe(false);
  });

  it('every native module installed here is a Node-API one (loads in Electron without a rebuild)', () => {
    const natives = ['better-sqlite3', ...readdirSync(join(root, 'node_modules', '@napi-rs')).map((n) => `@napi-rs/${n}`)].flatMap((dep) => {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.node') ? [join(dir, e.name)] : []));
      return walk(join(root, 'node_modules', dep));
    });
    expect(natives.length).toBeGreaterThan(0);
    for (const native of natives) {
      expect(readFileSync(native).includes('napi_register_module_v1'), relative(root, native)).toBe(true);
      expect(unpacked(relative(root, native).split(sep).join('/')), native).toBe(true);
    }
  });
});

describe('npm scripts and install scripts', () => {
  it('`npm run dist` builds, then packages with this configuration, publishing nothing', () => {
    const command = 'electron-vite build && electron-builder --config electron-builder.config.ts --publish never';
    expect(pkg.scripts.dist).toBe(command);
    expect(pkg.scripts['dist:linux']).toBe(`${command} --linux`);
    expect(pkg.scripts['dist:mac']).toBe(`${command} --mac`);
    expect(pkg.scripts['dist:win']).toBe(`${command} --win`);
    expect(pkg.devDependencies['electron-builder']).toMatch(/^\^26\./);
  });

  it('every install script in the dependency tree is explicitly allowed or denied', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts).toContain('electron-winstaller');
    for (const name of withScripts) expect(pkg.allowScripts, name).toHaveProperty([name]);
    // electron-winstaller only serves the Squirrel.Windows target, which is not built.
    expect(pkg.allowScripts['electron-winstaller']).toBe(false);
  });
});

describe('no dev dependency packed', () => {
  let dir: string;
  const outputs: { file: string; code: string }[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleet-release-'));
    const resolved = await resolveConfig({ configFile: join(root, 'electron.vite.config.ts'), logLevel: 'silent' }, 'build', 'production');
    for (const name of ['main', 'preload'] as const) {
      const section = resolved.config?.[name] as InlineConfig | undefined;
      if (!section) throw new Error(`electron.vite.config.ts has no ${name} section`);
      const target = join(dir, name);
      await build({ ...section, logLevel: 'silent', build: { ...section.build, outDir: target, emptyOutDir: true } });
      for (const entry of readdirSync(target, { recursive: true, encoding: 'utf8' })) {
        if (/\.(c|m)?js$/.test(entry)) outputs.push({ file: `${name}/${entry}`, code: readFileSync(join(target, entry), 'utf8') });
      }
    }
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
  const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

  /** Bare modules the bundles import or require at run time (not relative chunks, not built-ins, not electron). */
  function bareImports(): Map<string, string[]> {
    const found = new Map<string, string[]>();
    for (const { file, code } of outputs) {
      for (const match of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"'\s]+)["']/g)) {
        const specifier = match[1] ?? '';
        if (/^[./]/.test(specifier) || builtins.has(specifier) || specifier === 'electron') continue;
        if (!/^(@[a-z0-9-~][\w.-]*\/)?[a-z0-9-~][\w.-]*(\/.*)?$/.test(specifier)) continue;
        const name = packageOf(specifier);
        found.set(name, [...(found.get(name) ?? []), file]);
      }
    }
    return found;
  }

  it('builds the entries the package needs', () => {
    const files = outputs.map((o) => o.file);
    expect(files).toEqual(expect.arrayContaining(['main/index.js', 'main/service.js', 'preload/index.cjs']));
  });

  it('imports at run time only what package.json lists in `dependencies`', () => {
    const imports = bareImports();
    expect([...imports.keys()]).toEqual(expect.arrayContaining(['better-sqlite3', '@grpc/grpc-js', '@napi-rs/keyring', 'zod']));
    const missing = [...imports].filter(([name]) => !(name in pkg.dependencies)).map(([name, files]) => `${name} (${[...new Set(files)].join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('lists no build tool in `dependencies`', () => {
    const tools = ['electron', 'electron-builder', 'electron-vite', 'vite', 'vitest', '@playwright/test', 'playwright', 'typescript', 'tsx', 'eslint', 'svelte', 'svelte-check', 'ts-proto', '@bufbuild/buf'];
    expect(Object.keys(pkg.dependencies).filter((name) => tools.includes(name) || name.startsWith('@types/'))).toEqual([]);
    expect(Object.keys(pkg.dependencies).filter((name) => name in pkg.devDependencies)).toEqual([]);
  });
});
