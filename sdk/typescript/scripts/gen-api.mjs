// Generates src/schema.d.ts from the hub's OpenAPI document (../../docs/openapi.json),
// the same way the console does (web/scripts/gen-api.mjs). With --check it writes
// to a temporary file instead and fails when that differs from the committed file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const spec = resolve(pkgDir, '../../docs/openapi.json');
const check = process.argv.includes('--check');
const committed = resolve(pkgDir, 'src/schema.d.ts');
const tmp = mkdtempSync(join(tmpdir(), 'hostgate-sdk-api-'));
const out = check ? join(tmp, 'schema.d.ts') : committed;

try {
  execFileSync(
    process.execPath,
    [resolve(pkgDir, 'node_modules/openapi-typescript/bin/cli.js'), spec, '--output', out],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (check) {
    if (readFileSync(out, 'utf8') !== readFileSync(committed, 'utf8')) {
      console.error('src/schema.d.ts is out of date with docs/openapi.json: run npm run gen:api');
      process.exit(1);
    }
    console.log('src/schema.d.ts matches docs/openapi.json');
  } else {
    console.log('wrote src/schema.d.ts from docs/openapi.json');
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
