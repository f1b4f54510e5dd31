// `npm start`: build, then run Fleet Desk on its embedded local service.
// In Electron where its binary can be had; otherwise (or with --web) in browser mode, which prints
// the URL to open. `npm run web` is `npm start -- --web`.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureElectron } from './electron-binary.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const web = args.includes('--web');
const passThrough = args.filter((a) => a !== '--web');

const build = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

let command;
let commandArgs;
if (!web) {
  const electron = ensureElectron();
  if (electron.binary) {
    command = electron.binary;
    commandArgs = [root, ...passThrough];
  } else {
    console.error(`Electron's binary is not installed here and ${electron.reason}. Starting Fleet Desk in browser mode instead.`);
  }
}
if (!command) {
  command = process.execPath;
  commandArgs = [join(root, 'out', 'main', 'web.js'), ...passThrough];
}
const child = spawn(command, commandArgs, { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 0)));
