import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/client';
import {
  criteriaKey,
  CursorMemory,
  fetchPage,
  MAX_LISTS,
  MAX_OFFSET,
  nextCursorOf,
  PageTooDeepError,
  retryable,
  type Query,
} from './cursorPages';
import { pageToParams } from './paging';

describe('nextCursorOf', () => {
  it('reads a non-empty next_cursor and tolerates its absence', () => {
    expect(nextCursorOf({ items: [], next_cursor: 'abc' })).toBe('abc');
    expect(nextCursorOf({ items: [], next_cursor: '' })).toBeUndefined();
    expect(nextCursorOf({ items: [] })).toBeUndefined();
    expect(nextCursorOf({ next_cursor: 42 })).toBeUndefined();
    expect(nextCursorOf(null)).toBeUndefined();
    expect(nextCursorOf(undefined)).toBeUndefined();
  });
});

describe('criteriaKey', () => {
  it('ignores key order and empty values, and tells sizes apart', () => {
    expect(criteriaKey({ q: 'web', sort: 'name' }, 20)).toBe(criteriaKey({ sort: 'name', q: 'web', status: undefined, tag: [], os: '' }, 20));
    expect(criteriaKey({ q: 'web' }, 20)).not.toBe(criteriaKey({ q: 'web' }, 50));
    expect(criteriaKey({ sort: 'name' }, 20)).not.toBe(criteriaKey({ sort: '-name' }, 20));
    expect(criteriaKey({ tag: ['a', 'b'] }, 20)).not.toBe(criteriaKey({ tag: ['a'] }, 20));
  });
});

describe('CursorMemory', () => {
  const key = criteriaKey({ sort: 'name' }, 20);

  it('asks for page 1 by offset 0 and a remembered page by its cursor alone', () => {
    const m = new CursorMemory();
    expect(m.request('l', key, pageToParams(1, 20))).toEqual({ limit: 20, offset: 0 });
    m.remember('l', key, pageToParams(1, 20), 'c2');
    expect(m.request('l', key, pageToParams(2, 20))).toEqual({ limit: 20, cursor: 'c2' });
    // A page with no cursor known falls back to its offset.
    expect(m.request('l', key, pageToParams(7, 20))).toEqual({ limit: 20, offset: 120 });
  });

  it('forgets the next cursor on the last page, and every cursor when the criteria change', () => {
    const m = new CursorMemory();
    m.request('l', key, pageToParams(1, 20));
    m.remember('l', key, pageToParams(1, 20), 'c2');
    m.remember('l', key, pageToParams(2, 20), 'c3');
    expect(m.pages('l')).toEqual([2, 3]);
    m.remember('l', key, pageToParams(2, 20), undefined);
    expect(m.pages('l')).toEqual([2]);
    const other = criteriaKey({ sort: '-name' }, 20);
    expect(m.request('l', other, pageToParams(2, 20))).toEqual({ limit: 20, offset: 20 });
    expect(m.pages('l')).toEqual([]);
    // An answer for the criteria the list no longer shows is not kept.
    m.remember('l', key, pageToParams(1, 20), 'stale');
    expect(m.pages('l')).toEqual([]);
  });

  it('refuses a page past the deepest offset unless a cursor leads there', () => {
    const m = new CursorMemory();
    const deepest = pageToParams(MAX_OFFSET / 20 + 1, 20);
    const past = pageToParams(MAX_OFFSET / 20 + 2, 20);
    expect(m.request('l', key, deepest)).toEqual({ limit: 20, offset: MAX_OFFSET });
    expect(m.request('l', key, past)).toBeNull();
    m.remember('l', key, deepest, 'deeper');
    expect(m.request('l', key, past)).toEqual({ limit: 20, cursor: 'deeper' });
  });

  it('keeps lists apart and at most MAX_LISTS of them', () => {
    const m = new CursorMemory();
    for (let i = 0; i <= MAX_LISTS; i++) {
      m.request(`l${i}`, key, pageToParams(1, 20));
      m.remember(`l${i}`, key, pageToParams(1, 20), `c${i}`);
    }
    expect(m.pages('l0')).toEqual([]);
    expect(m.request('l1', key, pageToParams(2, 20))).toEqual({ limit: 20, cursor: 'c1' });
    expect(m.request(`l${MAX_LISTS}`, key, pageToParams(2, 20))).toEqual({ limit: 20, cursor: `c${MAX_LISTS}` });
  });
});

describe('fetchPage', () => {
  const sent: Query[] = [];
  // A fetch that records each query; what `h` throws becomes the rejection.
  const answers = (h: (q: Query) => unknown) => (q: Query) => {
    sent.push(q);
    return new Promise<unknown>((resolve) => resolve(h(q)));
  };
  const base = { list: 'l', criteria: { sort: 'name', limit: 999, offset: 5 } as Query, tooDeepMessage: 'too deep' };

  it('walks on with cursors and never sends offset with a cursor', async () => {
    sent.length = 0;
    const memory = new CursorMemory();
    const fetch = answers((q) => ({ items: [], next_cursor: `after-${String(q.cursor ?? q.offset)}` }));
    await fetchPage({ ...base, memory, page: pageToParams(1, 20), fetch });
    await fetchPage({ ...base, memory, page: pageToParams(2, 20), fetch });
    await fetchPage({ ...base, memory, page: pageToParams(3, 20), fetch });
    expect(sent).toEqual([
      { sort: 'name', limit: 20, offset: 0 },
      { sort: 'name', limit: 20, cursor: 'after-0' },
      { sort: 'name', limit: 20, cursor: 'after-after-0' },
    ]);
  });

  it('asks again by offset when the hub refuses a cursor, and forgets the list', async () => {
    sent.length = 0;
    const memory = new CursorMemory();
    memory.request('l', criteriaKey({ sort: 'name' }, 20), pageToParams(1, 20));
    memory.remember('l', criteriaKey({ sort: 'name' }, 20), pageToParams(1, 20), 'old');
    const fetch = answers((q) => {
      if (q.cursor) throw new ApiError(400, 'invalid_cursor', 'The cursor does not belong to this list.');
      return { items: [], next_cursor: 'fresh' };
    });
    await fetchPage({ ...base, memory, page: pageToParams(2, 20), fetch });
    expect(sent).toEqual([
      { sort: 'name', limit: 20, cursor: 'old' },
      { sort: 'name', limit: 20, offset: 20 },
    ]);
    expect(memory.pages('l')).toEqual([3]);
  });

  it('passes other errors through and does not fetch a page too deep to reach', async () => {
    sent.length = 0;
    const memory = new CursorMemory();
    const failing = (q: Query) => {
      sent.push(q);
      return Promise.reject(new ApiError(500, 'internal', 'boom'));
    };
    await expect(fetchPage({ ...base, memory, page: pageToParams(1, 20), fetch: failing })).rejects.toMatchObject({ code: 'internal' });
    await expect(fetchPage({ ...base, memory, page: pageToParams(10_000, 20), fetch: failing })).rejects.toBeInstanceOf(PageTooDeepError);
    expect(sent).toHaveLength(1);
    // Trying a page too deep again cannot help; any other failure may.
    expect(retryable(new PageTooDeepError('too deep'))).toBe(false);
    expect(retryable(new ApiError(500, 'internal', 'boom'))).toBe(true);
  });
});
