// Lint, including the layer rules that keep the processes apart:
// renderer never imports main/service; common imports neither electron nor node;
// service never imports main or renderer; only main/shell (and the preload) import electron.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';
import { builtinModules } from 'node:module';
import svelteConfig from './svelte.config.js';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];
const noNode = { paths: nodeBuiltins.map((name) => ({ name, message: 'This layer runs without Node: no Node built-ins.' })) };
const noElectron = { name: 'electron', message: 'Only main/shell (and preload) may import electron.' };

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'proto/gen/**', 'test-results/**', 'playwright-report/**', '.cache/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  ...svelte.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    settings: {
      // The zones below only apply to imports the resolver can find; ours are extensionless .ts/.svelte.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.svelte.ts', '.svelte', '.js', '.mjs', '.json'] })],
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './renderer', from: ['./main', './service', './preload'], message: 'The renderer reaches main only through the bridge (common/).' },
            { target: './common', from: ['./main', './service', './renderer', './preload', './proto'], message: 'common/ is the bridge contract and depends on nothing of ours.' },
            { target: './service', from: ['./main', './renderer', './preload', './common'], message: 'The service stands alone: it knows the wire contract only.' },
            { target: './preload', from: ['./main', './service', './renderer'], message: 'The preload exposes common/ and nothing else.' },
            { target: './main', from: ['./renderer', './preload'], message: 'main never imports the renderer or preload.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts', '**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { projectService: false, extraFileExtensions: ['.svelte'], parser: tseslint.parser, svelteConfig } },
  },
  {
    // In tests a wrong `!` fails the test that made it; elsewhere it would hide a crash.
    files: ['**/*.test.ts', 'test/**'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['common/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [...noNode.paths, noElectron] }] },
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', { paths: [...noNode.paths, noElectron] }] },
  },
  {
    files: ['main/**', 'service/**', 'test/**', 'bench/**', 'scripts/**'],
    ignores: ['main/shell/**', 'main/index.ts', 'test/**/*.electron.test.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [noElectron] }] },
  },
);
