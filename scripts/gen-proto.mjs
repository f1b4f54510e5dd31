// Regenerates proto/gen from proto/**/*.proto with buf + ts-proto.
// `--check` generates into a temporary folder and fails if the committed files differ,
// so a .proto edit without `npm run gen:proto` cannot pass the tests.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const protoDir = join(root, 'proto');
const genDir = join(protoDir, 'gen');
const check = process.argv.includes('--check');

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

function generate(outDir) {
  const buf = join(root, 'node_modules', '.bin', 'buf');
  const plugin = join(root, 'node_modules', '.bin', 'protoc-gen-ts_proto');
  const template = JSON.stringify({
    version: 'v2',
    plugins: [
      {
        local: plugin,
        out: outDir,
        strategy: 'all',
        opt: readFileSync(join(protoDir, 'buf.gen.yaml'), 'utf8')
          .split('\n')
          .filter((l) => /^\s+- \w+=/.test(l))
          .map((l) => l.trim().slice(2)),
      },
    ],
  });
  execFileSync(buf, ['generate', '--template', template], { cwd: protoDir, stdio: 'inherit' });
}

if (check) {
  const tmp = mkdtempSync(join(tmpdir(), 'fleet-proto-'));
  try {
    generate(tmp);
    const fresh = new Map(walk(tmp).map((p) => [relative(tmp, p), readFileSync(p, 'utf8')]));
    const committed = new Map(walk(genDir).map((p) => [relative(genDir, p), readFileSync(p, 'utf8')]));
    const stale = [];
    for (const [file, text] of fresh) if (committed.get(file) !== text) stale.push(file);
    for (const file of committed.keys()) if (!fresh.has(file)) stale.push(file);
    if (stale.length > 0) {
      console.error(`proto/gen is stale (${stale.length} file(s): ${stale.join(', ')}). Run \`npm run gen:proto\` and commit.`);
      process.exit(1);
    }
    console.log(`proto/gen is up to date (${fresh.size} files).`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  const tmp = mkdtempSync(join(tmpdir(), 'fleet-proto-'));
  try {
    generate(tmp);
    rmSync(genDir, { recursive: true, force: true });
    cpSync(tmp, genDir, { recursive: true });
    console.log(`generated ${walk(genDir).length} files into proto/gen`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
