// Generates src/api/schema.d.ts from the hub's OpenAPI document.
// With --check it writes to a temporary file instead and fails when that
// differs from the committed schema.d.ts (drift between hub and console).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { specPath, webDir } from './spec-path.mjs';

const spec = specPath();
const check = process.argv.includes('--check');
const committed = resolve(webDir, 'src/api/schema.d.ts');
const tmp = mkdtempSync(join(tmpdir(), 'hostgate-api-'));
const out = check ? join(tmp, 'schema.d.ts') : committed;

try {
  execFileSync(
    process.execPath,
    [resolve(webDir, 'node_modules/openapi-typescript/bin/cli.js'), spec, '--output', out],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (check) {
    const want = readFileSync(out, 'utf8');
    const have = readFileSync(committed, 'utf8');
    if (want !== have) {
      console.error(`src/api/schema.d.ts is out of date with ${spec}: run npm run gen:api`);
      process.exit(1);
    }
    console.log(`src/api/schema.d.ts matches ${spec}`);
  } else {
    console.log(`wrote src/api/schema.d.ts from ${spec}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
