// Where the hub's OpenAPI document is read from: --spec PATH, else the
// OPENAPI_SPEC environment variable, else ../docs/openapi.json (the copy the
// Go side commits).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const webDir = resolve(fileURLToPath(import.meta.url), '../..');

export function specPath(argv = process.argv.slice(2)) {
  const i = argv.indexOf('--spec');
  const chosen = i >= 0 ? argv[i + 1] : process.env.OPENAPI_SPEC;
  const path = resolve(chosen ?? resolve(webDir, '../docs/openapi.json'));
  if (!existsSync(path)) {
    console.error(`OpenAPI document not found: ${path}\n(pass --spec PATH or set OPENAPI_SPEC)`);
    process.exit(2);
  }
  return path;
}
