// Prints the gzipped size of each JS chunk the first page loads (the entry
// chunk and, transitively, its static imports, read from Vite's manifest)
// and fails when their sum exceeds the budget, or when index.html has an
// inline script.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { webDir } from './spec-path.mjs';

const BUDGET = 400 * 1024;
const dist = resolve(webDir, '../internal/console/dist');
const manifest = JSON.parse(readFileSync(resolve(dist, '.vite/manifest.json'), 'utf8'));

export function initialChunks(m) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const dep of m[key]?.imports ?? []) visit(dep);
  };
  for (const [key, chunk] of Object.entries(m)) if (chunk.isEntry) visit(key);
  return [...seen].map((k) => m[k].file).filter((f) => f.endsWith('.js'));
}

// The hub's CSP forbids inline scripts: index.html may only load script files.
const html = readFileSync(resolve(dist, 'index.html'), 'utf8');
const inline = [...html.matchAll(/<script\b[^>]*>/g)].filter((m) => !/\ssrc=/.test(m[0]));
if (inline.length) {
  console.error(`index.html has ${inline.length} inline <script>: the CSP would block it`);
  process.exit(1);
}

let total = 0;
for (const file of initialChunks(manifest)) {
  const size = gzipSync(readFileSync(resolve(dist, file)), { level: 9 }).length;
  total += size;
  console.log(`  ${file}  ${(size / 1024).toFixed(1)} KB gzip`);
}
const lazy = Object.values(manifest).filter((c) => c.isDynamicEntry).length;
console.log(`initial JS: ${(total / 1024).toFixed(1)} KB gzip (budget ${BUDGET / 1024} KB), ${lazy} lazy chunks`);
if (total > BUDGET) {
  console.error('bundle budget exceeded');
  process.exit(1);
}
