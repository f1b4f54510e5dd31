// Lint, including the layer rules that keep the processes apart (docs/ARCHITECTURE.md):
// renderer never imports main, service or preload; common imports neither electron, nor Node, nor
// anything of ours; service never imports main, renderer, preload or common; db/ (the migration runner
// both the service and main use) imports nothing of ours; only main/shell, main/index.ts and the
// preload import electron. test/lint/layers.test.ts proves each rule fires.
//
// The layers are one core rule, `no-restricted-imports`, per folder: it matches import strings, so
// it needs no module resolver (the resolver-based plugins pull native bindings this project's
// registry does not carry for every platform, which breaks `npm ci`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import { builtinModules } from 'node:module';
import svelteConfig from './svelte.config.js';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * The `no-restricted-imports` options for one layer.
 * @param {{ node?: boolean, electron?: boolean, forbid?: string[], why: string }} layer
 *   node/electron: whether the layer may import them; forbid: our folders it must not import.
 */
function layer({ node = true, electron = false, forbid = [], why }) {
  return [
    'error',
    {
      paths: [
        ...(node ? [] : nodeBuiltins.map((name) => ({ name, message: `${why} It runs without Node: no Node built-ins.` }))),
        ...(electron ? [] : [{ name: 'electron', message: `${why} Only main/shell, main/index.ts and the preload import electron.` }]),
      ],
      patterns: forbid.map((folder) => ({
        // Relative imports that climb into the folder (`../main/x`, `../../service/y`), at any depth.
        regex: `^(\\.\\./)+${folder}(/|$)`,
        message: `${why} It must not import ${folder}/.`,
      })),
    },
  ];
}

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
    rules: { 'no-restricted-imports': layer({ node: false, forbid: ['main', 'service', 'preload', 'proto'], why: 'The renderer reaches main only through the bridge (common/).' }) },
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
    rules: { 'no-restricted-imports': layer({ forbid: ['main', 'renderer', 'preload', 'common'], why: 'The service stands alone: it knows the wire contract only.' }) },
  },
  {
    // The migration runner both the service and main's cache use; it knows neither schema.
    files: ['db/**'],
    rules: { 'no-restricted-imports': layer({ forbid: ['main', 'service', 'renderer', 'preload', 'common', 'proto'], why: 'db/ is shared by the service and main, so it imports nothing of ours.' }) },
  },
  {
    files: ['main/**'],
    rules: {
      'no-restricted-imports': layer({
        forbid: ['renderer', 'preload', 'service'],
        why: 'main talks to the renderer only through the bridge, and to the service only over gRPC.',
      }),
    },
  },
  {
    files: ['main/shell/**', 'main/index.ts'],
    rules: {
      'no-restricted-imports': layer({
        electron: true,
        forbid: ['renderer', 'preload', 'service'],
        why: 'main talks to the renderer only through the bridge, and to the service only over gRPC.',
      }),
    },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { 'no-restricted-imports': layer({ why: 'Tests run the real layers without Electron.' }) },
  },
);
