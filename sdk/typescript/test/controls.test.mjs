import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { controls } from '../dist/index.js';

// The Go SDK's controls.go is the source of truth the SDKs share.
test('controls are identical to sdk/go/controls.go', () => {
  const src = readFileSync(new URL('../../go/controls.go', import.meta.url), 'utf8');
  const goValues = {};
  for (const m of src.matchAll(/^\s*(Ctl\w+)\s+int64\s*=\s*(\d+)(?:\s*<<\s*(\d+))?/gm)) {
    goValues[m[1]] = m[3] === undefined ? Number(m[2]) : Number(m[2]) * 2 ** Number(m[3]);
  }
  assert.ok(Object.keys(goValues).length >= 28);
  assert.deepEqual({ ...controls }, goValues);
});
