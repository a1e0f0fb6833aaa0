// Property tests of the console's parsers of URL and user text: random
// inputs from a small seeded PRNG (the same inputs on every run; a failure
// names its seed and input), checked for "never throws" and, where the code
// promises one, a round trip. docs/fuzzing.md lists them beside the Go
// fuzz targets.
import { describe, expect, it } from 'vitest';
import { HOSTS_SPEC } from '../admin/features/hosts/spec';
import { stateFromSearch, stateToSearch, type ListSpec } from '../admin/features/hosts/listQuery';
import { USERS_SPEC } from '../admin/features/users/spec';
import {
  jobParamsFromSearch,
  jobParamsToSearch,
  newJobHref,
  parseRawOperation,
  resultParamsFromSearch,
  resultParamsToSearch,
  targetFromSearch,
} from '../features/jobs/jobs';
import { parseControl } from '../features/terminal/protocol';
import { hostParamsFromSearch, hostParamsToSearch, pageFromSearch, pageToSearch } from './paging';
import { cleanTagExprs, formatTagExpr, parseTagExpr, tagsToTexts, textsToTags } from './tags';

const RUNS = 2000;
const SEED = 0x2727;

/** mulberry32: a tiny seeded PRNG, uniform in [0, 1). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

// Pieces that matter to the parsers: their parameter names and values,
// URL syntax, whitespace of several kinds, and text outside ASCII
// (including a lone surrogate and an RTL override).
const PIECES = [
  'q', 'status', 'sort', 'page', 'size', 'tag', 'online', 'os', 'agent_version', 'filter', 'host', 'state', 'rstate',
  'rpage', 'rsize', 'role', 'email', 'true', 'false', 'online', 'offline', 'pending', '-created_at', 'name', '-name',
  'env', 'prod', 'env=prod', 'role=', '=', '&', '?', '#', '%', '%2', '%zz', '%20', '%E2%80%AE', '+', ' ', '\t', '\n',
  '\u00a0', '\ufeff', '-', '.', '_', ':', '/', '@', '0', '1', '7', '20', '200', '201', '-1', '1e3', '0x10', '99999999999',
  'NaN', 'Infinity', '{', '}', '[', ']', '"', ',', 'controls', 'path', 'data', 'exit', 'error', 'type', 'exit_code',
  '\ud800', '\u202e', 'é', '测试', '🙂', 'null',
] as const;

function text(r: Rand, max = 12): string {
  let s = '';
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += r() < 0.85 ? pick(r, PIECES) : String.fromCharCode(Math.floor(r() * 0x3000));
  return s;
}

/** A random query string: key=value pairs of the parsers' names, and noise. */
function query(r: Rand): string {
  const parts: string[] = [];
  const n = Math.floor(r() * 8);
  for (let i = 0; i < n; i++) parts.push(r() < 0.8 ? `${pick(r, PIECES)}=${text(r, 4)}` : text(r, 4));
  return parts.join(r() < 0.9 ? '&' : ';');
}

/** Runs prop on RUNS random cases; a failure names the case's seed. */
function forAll(name: string, gen: (r: Rand) => string, prop: (input: string) => void): void {
  it(name, () => {
    for (let i = 0; i < RUNS; i++) {
      const seed = SEED + i;
      const input = gen(prng(seed));
      try {
        prop(input);
      } catch (e) {
        throw new Error(`seed ${seed}, input ${JSON.stringify(input)}: ${(e as Error).message}`, { cause: e });
      }
    }
  });
}

/** The query as a browser would hand it back after following the link. */
const reparse = (sp: URLSearchParams) => new URLSearchParams(sp.toString());

describe('URL state round trips', () => {
  for (const [name, spec] of [['hosts', HOSTS_SPEC], ['users', USERS_SPEC]] as [string, ListSpec][]) {
    forAll(`admin ${name} list: stateFromSearch never throws and its state survives stateToSearch`, query, (q) => {
      const s = stateFromSearch(spec, new URLSearchParams(q));
      expect(s.limit).toBeGreaterThanOrEqual(1);
      expect(s.offset % s.limit).toBe(0);
      expect(stateFromSearch(spec, reparse(stateToSearch(spec, s)))).toEqual(s);
    });
  }

  forAll('hosts list: hostParamsFromSearch never throws and survives hostParamsToSearch', query, (q) => {
    const p = hostParamsFromSearch(new URLSearchParams(q));
    expect(hostParamsFromSearch(reparse(hostParamsToSearch(p)))).toEqual(p);
  });

  forAll('paging: pageFromSearch stays in bounds and survives pageToSearch (with and without a prefix)', query, (q) => {
    for (const prefix of ['', 'r']) {
      const sp = new URLSearchParams(q);
      const p = pageFromSearch(sp, prefix);
      expect(p.limit >= 1 && p.limit <= 200 && p.offset >= 0 && Number.isInteger(p.offset)).toBe(true);
      expect(pageFromSearch(reparse(pageToSearch(sp, p, prefix)), prefix)).toEqual(p);
    }
  });

  forAll('jobs list and results table: their URL state survives a round trip', query, (q) => {
    const sp = new URLSearchParams(q);
    const j = jobParamsFromSearch(sp);
    expect(jobParamsFromSearch(reparse(jobParamsToSearch(j)))).toEqual(j);
    const rp = resultParamsFromSearch(sp);
    expect(resultParamsFromSearch(reparse(resultParamsToSearch(sp, rp)))).toEqual(rp);
  });

  forAll('new job: targetFromSearch survives newJobHref', query, (q) => {
    const t = targetFromSearch(new URLSearchParams(q));
    const href = newJobHref(t);
    expect(targetFromSearch(new URLSearchParams(href.split('?')[1] ?? ''))).toEqual(t);
  });
});

describe('user text', () => {
  forAll('tags: parseTagExpr never throws; what it accepts formats and parses back the same', (r) => text(r), (s) => {
    const e = parseTagExpr(s);
    if (e) expect(parseTagExpr(formatTagExpr(e))).toEqual(e);
  });

  forAll('tags: cleanTagExprs is idempotent', (r) => query(r), (q) => {
    const once = cleanTagExprs(q.split('&'));
    expect(cleanTagExprs(once)).toEqual(once);
  });

  forAll('tags: an editor\'s texts → tags → texts → the same tags', (r) => query(r), (q) => {
    const { tags } = textsToTags(q.split('&'));
    const again = textsToTags(tagsToTexts(tags));
    expect(again.tags).toEqual(tags);
    expect(again.invalid).toEqual([]);
  });

  const jsonish = (r: Rand) => (r() < 0.5 ? text(r, 16) : JSON.stringify({ [pick(r, PIECES)]: text(r, 3), controls: r() < 0.5 ? Math.floor(r() * 100) - 5 : text(r, 2), path: text(r, 3), type: pick(r, ['exit', 'error', text(r, 2)]), exit_code: r() < 0.5 ? 3 : text(r, 2) }));

  forAll('jobs: parseRawOperation never throws and accepts only {controls ≥ 1 integer, path string}', jsonish, (s) => {
    const res = parseRawOperation(s);
    if (res.ok) {
      expect(Number.isInteger(res.op.controls) && res.op.controls >= 1 && typeof res.op.path === 'string').toBe(true);
    }
  });

  forAll('terminal: parseControl never throws and returns one of its three kinds', jsonish, (s) => {
    expect(['exit', 'error', 'unknown']).toContain(parseControl(s).type);
  });
});
