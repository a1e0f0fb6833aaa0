// Prints the gzipped size of each JS chunk the first page of each console
// loads (the entry chunk and, transitively, its static imports, read from
// Vite's manifest) and fails when one console's sum exceeds its budget, or
// when an HTML page has an inline script. Two entries: the user console
// (index.html) and the admin console (admin.html).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { webDir } from './spec-path.mjs';

const BUDGETS = { 'index.html': 400 * 1024, 'admin.html': 400 * 1024 };
const dist = resolve(webDir, '../internal/console/dist');
const manifest = JSON.parse(readFileSync(resolve(dist, '.vite/manifest.json'), 'utf8'));

/** The JS files the first page of entry (or of every entry) loads. */
export function initialChunks(m, entry) {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const dep of m[key]?.imports ?? []) visit(dep);
  };
  for (const [key, chunk] of Object.entries(m)) if (chunk.isEntry && (!entry || key === entry)) visit(key);
  return [...seen].map((k) => m[k].file).filter((f) => f.endsWith('.js'));
}

let failed = false;
for (const [page, budget] of Object.entries(BUDGETS)) {
  // The hub's CSP forbids inline scripts: a page may only load script files.
  const html = readFileSync(resolve(dist, page), 'utf8');
  const inline = [...html.matchAll(/<script\b[^>]*>/g)].filter((m) => !/\ssrc=/.test(m[0]));
  if (inline.length) {
    console.error(`${page} has ${inline.length} inline <script>: the CSP would block it`);
    failed = true;
  }
  if (!manifest[page]?.isEntry) {
    console.error(`${page} is not an entry of the build`);
    failed = true;
    continue;
  }
  let total = 0;
  console.log(`${page}:`);
  for (const file of initialChunks(manifest, page)) {
    const size = gzipSync(readFileSync(resolve(dist, file)), { level: 9 }).length;
    total += size;
    console.log(`  ${file}  ${(size / 1024).toFixed(1)} KB gzip`);
  }
  console.log(`${page} initial JS: ${(total / 1024).toFixed(1)} KB gzip (budget ${budget / 1024} KB)`);
  if (total > budget) {
    console.error(`${page}: bundle budget exceeded`);
    failed = true;
  }
}
const lazy = Object.values(manifest).filter((c) => c.isDynamicEntry).length;
console.log(`${lazy} lazy chunks`);
if (failed) process.exit(1);
