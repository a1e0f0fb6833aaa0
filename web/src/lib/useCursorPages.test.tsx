// The shared paging hook against a fake hub: Next walks on by cursor, Back
// reuses the cursors already seen, a far jump falls back to offset, a new
// sort starts over, and offset and cursor never go out together.
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../api/client';
import { I18nProvider } from '../i18n';
import { json, mockFetch, type FetchCall } from '../test/helpers';
import { CursorMemory } from './cursorPages';
import { pageToParams } from './paging';
import { useCursorPages } from './useCursorPages';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Lets the fake hub answer and React render (inside act) until `check` passes, for at most 2 s. */
async function until(check: () => void) {
  const end = Date.now() + 2_000;
  for (;;) {
    await act(() => new Promise<void>((r) => setTimeout(r, 5)));
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
    }
  }
}

const TOTAL = 20_000;

/** A hub that pages 20,000 hosts by offset or cursor; `cursors: false` is a hub from before cursors. */
function fakeHub(calls: FetchCall[], opts: { cursors: boolean; refuse?: string }) {
  mockFetch(calls, (url) => {
    const sp = new URL(url, 'http://hub').searchParams;
    const limit = Number(sp.get('limit'));
    const sort = sp.get('sort') ?? '';
    const cursor = sp.get('cursor');
    if (cursor && sp.has('offset')) return json(400, { error: 'invalid_query', message: 'cursor with offset' });
    if (cursor && cursor === opts.refuse) return json(400, { error: 'invalid_cursor', message: 'The cursor does not belong to this list.' });
    let start = Number(sp.get('offset') ?? 0);
    if (cursor) {
      const [s, at] = cursor.split('@');
      if (s !== sort) return json(400, { error: 'invalid_cursor', message: 'The cursor was made for another sort.' });
      start = Number(at);
    }
    const end = Math.min(TOTAL, start + limit);
    const items = Array.from({ length: end - start }, (_, i) => ({ id: `h${start + i}` }));
    const body: Record<string, unknown> = { items, total: TOTAL, limit, offset: cursor ? 0 : start };
    if (opts.cursors && end < TOTAL) body.next_cursor = `${sort}@${end}`;
    return json(200, body);
  });
}

interface Props {
  page: number;
  size: number;
  sort: string;
  onData: (d: { items?: { id: string }[] } | undefined, err: unknown) => void;
}

let memory = new CursorMemory();

function List({ page, size, sort, onData }: Props) {
  const p = pageToParams(page, size);
  const q = useCursorPages({
    list: 'test.hosts',
    queryKey: ['test', 'hosts', sort, p],
    page: p,
    criteria: { sort },
    fetch: (query, signal) => api.get<{ items?: { id: string }[] }>('/v1/user/hosts', query, signal),
    memory,
  });
  onData(q.isPlaceholderData ? undefined : q.data, q.error);
  return null;
}

let root: Root | null = null;
let el: HTMLElement | null = null;
const qc = () => new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 0 } } });

function mount() {
  el = document.createElement('div');
  document.body.appendChild(el);
  root = createRoot(el);
  const client = qc();
  let first: string | undefined;
  let error: unknown;
  const onData: Props['onData'] = (d, err) => {
    first = d?.items?.[0]?.id;
    error = err;
  };
  const show = (page: number, sort = 'name', size = 20) =>
    act(() =>
      root?.render(
        <QueryClientProvider client={client}>
          <I18nProvider>
            <List page={page} size={size} sort={sort} onData={onData} />
          </I18nProvider>
        </QueryClientProvider>,
      ),
    );
  return { show, firstRow: () => first, error: () => error };
}

const query = (c: FetchCall) => Object.fromEntries(new URL(c.url, 'http://hub').searchParams);

beforeEach(() => {
  memory = new CursorMemory();
});

afterEach(() => {
  act(() => root?.unmount());
  el?.remove();
  vi.unstubAllGlobals();
});

describe('useCursorPages', () => {
  it('walks Next by cursor, Back by the remembered cursors, and a far jump by offset', async () => {
    const calls: FetchCall[] = [];
    fakeHub(calls, { cursors: true });
    const l = mount();
    const step = async (page: number, sort = 'name', size = 20) => {
      const n = calls.length;
      l.show(page, sort, size);
      await until(() => expect(calls.length).toBe(n + 1));
      await until(() => expect(l.firstRow()).toBe(`h${(page - 1) * size}`));
      return query(calls[n] as FetchCall);
    };
    expect(await step(1)).toEqual({ sort: 'name', limit: '20', offset: '0' });
    expect(await step(2)).toEqual({ sort: 'name', limit: '20', cursor: 'name@20' });
    expect(await step(3)).toEqual({ sort: 'name', limit: '20', cursor: 'name@40' });
    // Back: the cursor page 2 was asked for with, remembered.
    expect(await step(2)).toEqual({ sort: 'name', limit: '20', cursor: 'name@20' });
    // A jump to a far page number: offset, then Next from there by cursor.
    expect(await step(500)).toEqual({ sort: 'name', limit: '20', offset: '9980' });
    expect(await step(501)).toEqual({ sort: 'name', limit: '20', cursor: 'name@10000' });
    // Back from 500 to 499, never seen: offset.
    expect(await step(499)).toEqual({ sort: 'name', limit: '20', offset: '9960' });
    // A new sort starts over at page 1, and its page 2 uses the new sort's cursor.
    expect(await step(1, '-name')).toEqual({ sort: '-name', limit: '20', offset: '0' });
    expect(await step(2, '-name')).toEqual({ sort: '-name', limit: '20', cursor: '-name@20' });
    // The old sort's cursors are forgotten: its page 3 is asked for by offset.
    expect(await step(3, 'name')).toEqual({ sort: 'name', limit: '20', offset: '40' });
    // A new page size starts over too.
    expect(await step(2, 'name', 50)).toEqual({ sort: 'name', limit: '50', offset: '50' });
    expect(await step(3, 'name', 50)).toEqual({ sort: 'name', limit: '50', cursor: 'name@100' });
    for (const c of calls) expect(Object.keys(query(c)).filter((k) => k === 'offset' || k === 'cursor')).toHaveLength(1);
  });

  it('pages by offset on a hub without cursors', async () => {
    const calls: FetchCall[] = [];
    fakeHub(calls, { cursors: false });
    const l = mount();
    l.show(1);
    await until(() => expect(l.firstRow()).toBe('h0'));
    l.show(2);
    await until(() => expect(l.firstRow()).toBe('h20'));
    expect(calls.map(query)).toEqual([
      { sort: 'name', limit: '20', offset: '0' },
      { sort: 'name', limit: '20', offset: '20' },
    ]);
  });

  it('asks again by offset when the hub refuses a cursor', async () => {
    const calls: FetchCall[] = [];
    fakeHub(calls, { cursors: true, refuse: 'name@20' });
    const l = mount();
    l.show(1);
    await until(() => expect(l.firstRow()).toBe('h0'));
    l.show(2);
    await until(() => expect(l.firstRow()).toBe('h20'));
    expect(l.error()).toBeNull();
    expect(calls.map(query)).toEqual([
      { sort: 'name', limit: '20', offset: '0' },
      { sort: 'name', limit: '20', cursor: 'name@20' },
      { sort: 'name', limit: '20', offset: '20' },
    ]);
  });

  it('says a page past the deepest offset cannot be opened, without asking the hub', async () => {
    const calls: FetchCall[] = [];
    fakeHub(calls, { cursors: true });
    const l = mount();
    l.show(6_000);
    await until(() => expect(l.error()).toMatchObject({ code: 'page_too_deep' }));
    expect(calls).toHaveLength(0);
  });
});
