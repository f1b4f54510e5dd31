// Lint, including the layer rules that keep the processes apart (docs/ARCHITECTURE.md):
// renderer never imports main, service or preload; common imports neither electron, nor Node, nor
// anything of ours; service never imports main, renderer, preload or common; db/ (the migration runner
// both the service and main use) and fleetconfig/ (configs and fragment resolution, which both use
// too; no Node either) import nothing of ours; only main/shell, main/index.ts and the
// preload import electron. test/lint/layers.test.ts proves each rule fires.
//
// The layers are one core rule, `no-restricted-imports`, per folder: it matches import strings, so
// it needs no module resolver (the resolver-based plugins pull native bindings this project's
// registry does not carry for every platform, which breaks `npm ci`).
//
// Inside the service, domains are leaves (docs/ARCHITECTURE.md): a domain folder imports only the
// kernel, never another domain, and the kernel imports no domain; only the composition root
// (server.ts and the set-up code beside it) knows every domain.
//
// The renderer is built the same way: renderer/src/features/<domain>/ imports lib/ (the kernel:
// ui/, bridge/, fleet/, state/, router/, shell/, testing/, the formatters) and no other feature, and
// lib/ imports no feature. The composition root is the top of renderer/src (features.ts, which lists
// the features; app.svelte.ts; App.svelte, the layout and the router's outlet; main.ts): it may import them all.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import svelteConfig from './svelte.config.js';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** The service's kernel folders; with the files at the top of service/ (but the composition root's), they import no domain. */
const SERVICE_KERNEL_FOLDERS = ['permissions', 'db'];
/** The composition root: the files of service/ that know every domain (set-up, demo, the CLI). */
const SERVICE_COMPOSITION = ['server.ts', 'main.ts', 'bootstrap.ts', 'demo.ts', 'simulator.ts'];
/** Every other folder of service/ is a domain, read from the disk so that a new one is a leaf from its first file. */
const serviceDomains = readdirSync(new URL('./service/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !SERVICE_KERNEL_FOLDERS.includes(entry.name))
  .map((entry) => entry.name)
  .sort();
/** The renderer's feature folders, read from the disk so that a new one is a leaf from its first file. */
const rendererFeatures = readdirSync(new URL('./renderer/src/features/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const RENDERER_LAYER = { node: false, forbid: ['main', 'service', 'preload', 'proto'], why: 'The renderer reaches main only through the bridge (common/).' };
const SERVICE_LAYER = { forbid: ['main', 'renderer', 'preload', 'common'], why: 'The service stands alone: it knows the wire contract only.' };

/**
 * A `no-restricted-imports` pattern refusing imports of the service's domain folders `domains`;
 * `climb` is how the importer reaches the top of service/ (`\\./` from a file there, `(\\.\\./)+` from a folder).
 */
function domainImports(domains, climb, why) {
  return domains.length === 0 ? [] : [{ regex: `^${climb}(${domains.join('|')})(/|$)`, message: why }];
}

/**
 * The `no-restricted-imports` options for one layer.
 * @param {{ node?: boolean, electron?: boolean, forbid?: string[], also?: { regex: string, message: string }[], why: string }} layer
 *   node/electron: whether the layer may import them; forbid: our folders it must not import;
 *   also: further forbidden import patterns inside the layer (the service's and main's domain rules
 *   below), kept in the same rule because a file gets the `no-restricted-imports` of the last block
 *   that matches it.
 */
function layer({ node = true, electron = false, forbid = [], also = [], why }) {
  return [
    'error',
    {
      paths: [
        ...(node ? [] : nodeBuiltins.map((name) => ({ name, message: `${why} It runs without Node: no Node built-ins.` }))),
        ...(electron ? [] : [{ name: 'electron', message: `${why} Only main/shell, main/index.ts and the preload import electron.` }]),
      ],
      patterns: [
        ...forbid.map((folder) => ({
          // Relative imports that climb into the folder (`../main/x`, `../../service/y`), at any depth.
          regex: `^(\\.\\./)+${folder}(/|$)`,
          message: `${why} It must not import ${folder}/.`,
        })),
        ...also,
      ],
    },
  ];
}

const mainForbid = ['renderer', 'preload', 'service'];
const mainWhy = 'main talks to the renderer only through the bridge, and to the service only over gRPC.';
/** main's domain folders (see the main blocks below). */
const mainDomains = ['orgs', 'locations', 'machines', 'logs', 'registry', 'training', 'ui', 'config', 'fragments', 'access'];
/** main's kernel folders: what the domains stand on. */
const mainKernel = ['backend', 'cache', 'connection', 'fleet', 'fs', 'grpc', 'keychain', 'local-service', 'profiles', 'security', 'shell', 'web'];
/** The files that put every domain together, and so may import them all. */
const compositionRoots = ['main/backend/backend.ts', 'main/cache/all-jobs.ts', 'main/index.ts', 'main/web.ts'];
const kernelImportsNoDomain = {
  // From a kernel folder (`../orgs/x`, `../../logs/y`) or from main/ itself (`./orgs/x`).
  regex: `^(\\./|(\\.\\./)+)(${mainDomains.join('|')})(/|$)`,
  message: 'The kernel imports no domain: a domain registers with it instead (a handler spread, a jobs record, a ProfileScoped service) in a composition root.',
};

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'proto/gen/**', 'test-results/**', 'playwright-report/**', '.cache/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.ts', '**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { projectService: false, extraFileExtensions: ['.svelte'], parser: tseslint.parser, svelteConfig } },
  },
  {
    // In tests (and benchmarks) a wrong `!` fails the run that made it; elsewhere it would hide a crash.
    files: ['**/*.test.ts', 'test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // Layers. Later blocks override earlier ones for the same rule, so each folder has exactly one.
  {
    files: ['common/**'],
    rules: { 'no-restricted-imports': layer({ node: false, forbid: ['main', 'service', 'renderer', 'preload', 'proto'], why: 'common/ is the bridge contract and depends on nothing of ours.' }) },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': layer(RENDERER_LAYER) },
  },
  // Renderer features are leaves: each imports lib/ and none of the others (`../registry/x` from a
  // feature, `../../features/registry/x` through src/). Each block carries the renderer layer rule
  // and its browser globals too: only the last matching block's rule applies.
  ...rendererFeatures.map((feature) => {
    const others = rendererFeatures.filter((other) => other !== feature);
    const message = `renderer/src/features/${feature}/ is a feature: it imports lib/ (ui, bridge, fleet, state…), never another feature; what composes features belongs in the composition root (renderer/src/features.ts, App.svelte); a page of another feature is reached by its route.`;
    return {
      files: [`renderer/src/features/${feature}/**`],
      languageOptions: { globals: { ...globals.browser } },
      rules: {
        'no-restricted-imports': layer({
          ...RENDERER_LAYER,
          also: others.length === 0 ? [] : [
            { regex: `^(\\.\\./)+(${others.join('|')})(/|$)`, message },
            { regex: `^(\\.\\./)+features/(${others.join('|')})(/|$)`, message },
          ],
        }),
      },
    };
  }),
  {
    // The renderer's kernel: every feature may import it, so it imports none.
    files: ['renderer/src/lib/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': layer({
        ...RENDERER_LAYER,
        also: [{ regex: '^(\\.\\./)+features(/|$)', message: 'renderer/src/lib/ is the kernel: it imports no feature; a feature hands it what it needs (props, callbacks).' }],
      }),
    },
  },
  {
    files: ['preload/**'],
    ignores: ['preload/**/*.test.ts'],
    rules: { 'no-restricted-imports': layer({ node: false, electron: true, forbid: ['main', 'service', 'renderer'], why: 'The sandboxed preload exposes common/ and nothing else.' }) },
  },
  {
    // The preload's unit tests run in Node, against a mocked electron.
    files: ['preload/**/*.test.ts'],
    rules: { 'no-restricted-imports': layer({ electron: true, forbid: ['main', 'service', 'renderer'], why: 'The preload exposes common/ and nothing else.' }) },
  },
  {
    files: ['service/**'],
    rules: { 'no-restricted-imports': layer(SERVICE_LAYER) },
  },
  // Service domains are leaves: each imports the kernel and none of the others.
  ...serviceDomains.map((domain) => ({
    files: [`service/${domain}/**`],
    rules: {
      'no-restricted-imports': layer({
        ...SERVICE_LAYER,
        also: domainImports(
          serviceDomains.filter((other) => other !== domain),
          '(\\.\\./)+',
          `service/${domain}/ is a domain: it imports the kernel (service/*.ts, permissions/, db/), never another domain; what it needs of one, server.ts hands in.`,
        ),
      }),
    },
  })),
  {
    // The kernel: the files at the top of service/ but the composition root's.
    files: ['service/*.ts'],
    ignores: SERVICE_COMPOSITION.map((file) => `service/${file}`),
    rules: { 'no-restricted-imports': layer({ ...SERVICE_LAYER, also: domainImports(serviceDomains, '\\./', 'The service kernel imports no domain: every domain may import it.') }) },
  },
  {
    files: SERVICE_KERNEL_FOLDERS.map((folder) => `service/${folder}/**`),
    rules: { 'no-restricted-imports': layer({ ...SERVICE_LAYER, also: domainImports(serviceDomains, '(\\.\\./)+', 'The service kernel imports no domain: every domain may import it.') }) },
  },
  {
    // The migration runner both the service and main's cache use; it knows neither schema.
    files: ['db/**'],
    rules: { 'no-restricted-imports': layer({ forbid: ['main', 'service', 'renderer', 'preload', 'common', 'proto'], why: 'db/ is shared by the service and main, so it imports nothing of ours.' }) },
  },
  {
    // Configs, fragments and their resolution, which the service and main share: pure (no Node), so it
    // runs wherever a config is edited or checked.
    files: ['fleetconfig/**'],
    rules: { 'no-restricted-imports': layer({ node: false, forbid: ['main', 'service', 'renderer', 'preload', 'common', 'proto', 'db'], why: 'fleetconfig/ is shared by the service and main, so it imports nothing of ours.' }) },
  },
  // main, inside: domains are leaves on a kernel (docs/ARCHITECTURE.md, "Inside main"). A domain
  // folder holds one domain's handlers, cache tables and jobs, watchers and conversions; the kernel is
  // what every domain stands on and imports no domain: backend (router, calls, context, errors,
  // events, metadata), cache (open, migrate, worker, the kernel's own tables), connection (sessions,
  // sync rounds, the profile-switch mechanism), fleet (the tree of organizations, locations, machines
  // and parts that several domains read, and its sync), profiles and local-service (the app's own
  // machinery under every connection), fs, grpc, keychain, security, shell, web, paths.ts. The
  // composition roots know every domain, so they are named here as the exceptions: backend/backend.ts
  // (handlers and services), cache/all-jobs.ts (cache jobs), index.ts and web.ts (the two hosts).
  // Each block below carries the main layer rule too: only the last matching block's rule applies.
  {
    files: ['main/**'],
    rules: { 'no-restricted-imports': layer({ forbid: mainForbid, why: mainWhy }) },
  },
  {
    files: mainKernel.map((folder) => `main/${folder}/**`).concat(['main/paths.ts']),
    ignores: [...compositionRoots, 'main/shell/**'],
    rules: { 'no-restricted-imports': layer({ forbid: mainForbid, also: [kernelImportsNoDomain], why: mainWhy }) },
  },
  {
    files: ['main/shell/**'],
    rules: { 'no-restricted-imports': layer({ electron: true, forbid: mainForbid, also: [kernelImportsNoDomain], why: mainWhy }) },
  },
  {
    files: ['main/index.ts'],
    rules: { 'no-restricted-imports': layer({ electron: true, forbid: mainForbid, why: mainWhy }) },
  },
  ...mainDomains.map((domain) => ({
    files: [`main/${domain}/**`],
    rules: {
      'no-restricted-imports': layer({
        forbid: mainForbid,
        also: [
          {
            regex: `^(\\.\\./)+(${mainDomains.filter((d) => d !== domain).join('|')})(/|$)`,
            message: `main/${domain}/ is a domain: it must not import another domain's folder. What several domains share belongs in the kernel (backend, cache, connection, fleet…); what composes them, in a composition root.`,
          },
        ],
        why: mainWhy,
      }),
    },
  })),
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-imports': layer({ why: 'Tests run the real layers without Electron.' }) },
  },
);
