// Cursor (keyset) paging for the console's long lists, kept behind the page
// numbers the URL holds. The hub answers every page with `next_cursor` (the
// way to the page after it, absent on the last page); a page of a deep list
// costs about what the first one does only when it is asked for by cursor,
// so the console remembers, per list, the cursor of every page it has seen
// the way to, and:
//   - page 1 is asked for from the start (no cursor, offset 0);
//   - a page whose cursor is remembered (Next from the page before, Back to a
//     page already walked through) is asked for by that cursor alone;
//   - any other page (a link, a reload, a jump to a far page number) falls
//     back to `offset`, which the hub takes up to MAX_OFFSET; that page's
//     answer again carries the cursor of the next one.
// A cursor belongs to one list's criteria (search, filters, sort, page
// size): when they change, the list's cursors are forgotten. A cursor the
// hub refuses (400 invalid_cursor: a hub restarted with a new key, or a
// cursor of another query) is forgotten and the page is asked for by offset.
// `offset` and `cursor` are never sent together (the hub refuses that).
import { ApiError } from '../api/client';
import type { PageParams } from './paging';

/** The deepest `offset` the hub accepts (docs/api.md, Paging). */
export const MAX_OFFSET = 100_000;

/** How many lists keep cursors at once (the oldest is dropped). */
export const MAX_LISTS = 32;
/** How many pages' cursors one list keeps (the oldest is dropped). */
export const MAX_PAGES = 2_000;

/** A query's values as the API client takes them. */
export type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

/** The paging part of a request: a cursor or an offset, never both. */
export type PageRequest = { limit: number; cursor: string } | { limit: number; offset: number };

/**
 * The `next_cursor` of a page answer, or undefined when it has none (the last
 * page, or a hub that pages by offset only). Read through here rather than
 * from the generated types, which gain the field with the hub.
 */
export function nextCursorOf(answer: unknown): string | undefined {
  if (typeof answer !== 'object' || answer === null) return undefined;
  const c = (answer as { next_cursor?: unknown }).next_cursor;
  return typeof c === 'string' && c !== '' ? c : undefined;
}

/** The page number (1-based) of a limit/offset pair. */
export function pageNumber(p: PageParams): number {
  return Math.floor(p.offset / Math.max(1, p.limit)) + 1;
}

/**
 * A stable text for a list's criteria and page size: keys sorted, empty
 * values (undefined, null, '', []) left out, so `{q: undefined}` and `{}`
 * name the same query.
 */
export function criteriaKey(criteria: Query, limit: number): string {
  const parts: [string, unknown][] = [];
  for (const k of Object.keys(criteria).sort()) {
    if (k === 'limit' || k === 'offset' || k === 'cursor') continue;
    const v = criteria[k];
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    parts.push([k, v]);
  }
  return JSON.stringify([limit, parts]);
}

/** The page (URL page number) is past what an offset can reach and no cursor leads there. */
export class PageTooDeepError extends ApiError {
  constructor(message: string) {
    super(400, 'page_too_deep', message);
    this.name = 'PageTooDeepError';
  }
}

/** Whether asking for the same page again can help (not for a page too deep to open). */
export const retryable = (err: unknown): boolean => !(err instanceof PageTooDeepError);

interface ListMemory {
  criteria: string;
  /** Page number → the cursor that asks for that page. */
  cursors: Map<number, string>;
}

/** Each list's remembered cursors, by a list id unique to one table of the console. */
export class CursorMemory {
  private lists = new Map<string, ListMemory>();

  /** The list's memory for these criteria; other criteria's cursors are forgotten. */
  private of(list: string, criteria: string): ListMemory {
    let m = this.lists.get(list);
    if (!m || m.criteria !== criteria) {
      m = { criteria, cursors: new Map() };
      this.lists.delete(list);
      this.lists.set(list, m);
      while (this.lists.size > MAX_LISTS) this.lists.delete(this.lists.keys().next().value as string);
    }
    return m;
  }

  /** How to ask for `page` of the list (its criteria in `criteria`); null when it cannot be reached. */
  request(list: string, criteria: string, page: PageParams): PageRequest | null {
    const n = pageNumber(page);
    const m = this.of(list, criteria);
    const cursor = n > 1 ? m.cursors.get(n) : undefined;
    if (cursor) return { limit: page.limit, cursor };
    const offset = (n - 1) * page.limit;
    return offset <= MAX_OFFSET ? { limit: page.limit, offset } : null;
  }

  /**
   * Notes the answer to `page`: the cursor of the page after it, or that
   * there is none. An answer for criteria the list no longer shows is
   * ignored (a request that was still out when a filter changed).
   */
  remember(list: string, criteria: string, page: PageParams, next: string | undefined) {
    const m = this.lists.get(list);
    if (!m || m.criteria !== criteria) return;
    const n = pageNumber(page) + 1;
    m.cursors.delete(n);
    if (!next) return;
    m.cursors.set(n, next);
    while (m.cursors.size > MAX_PAGES) m.cursors.delete(m.cursors.keys().next().value as number);
  }

  /** Forgets every cursor of the list. */
  forget(list: string) {
    this.lists.delete(list);
  }

  /** The page numbers the list has cursors for (tests and debugging). */
  pages(list: string): number[] {
    return [...(this.lists.get(list)?.cursors.keys() ?? [])].sort((a, b) => a - b);
  }
}

/** The console's one memory: it outlives a page, so Back to a list walked with Next keeps its cursors. */
export const cursorMemory = new CursorMemory();

export interface FetchPageArgs<T> {
  memory: CursorMemory;
  /** The list's id (one per table of the console). */
  list: string;
  /** Everything the list is asked for but paging: search, filters, sort. */
  criteria: Query;
  page: PageParams;
  fetch: (query: Query, signal?: AbortSignal) => Promise<T>;
  signal?: AbortSignal;
  /** The words of PageTooDeepError. */
  tooDeepMessage: string;
}

/** Asks the hub for one page by cursor or offset (see the file's comment) and remembers the way on. */
export async function fetchPage<T>(a: FetchPageArgs<T>): Promise<T> {
  const criteria = withoutPaging(a.criteria);
  const key = criteriaKey(criteria, a.page.limit);
  const req = a.memory.request(a.list, key, a.page);
  if (!req) throw new PageTooDeepError(a.tooDeepMessage);
  let answer: T;
  try {
    answer = await a.fetch({ ...criteria, ...req }, a.signal);
  } catch (err) {
    if (!('cursor' in req) || !(err instanceof ApiError) || err.code !== 'invalid_cursor') throw err;
    a.memory.forget(a.list);
    const again = a.memory.request(a.list, key, a.page);
    if (!again) throw new PageTooDeepError(a.tooDeepMessage);
    answer = await a.fetch({ ...criteria, ...again }, a.signal);
  }
  a.memory.remember(a.list, key, a.page, nextCursorOf(answer));
  return answer;
}

/** The criteria without any paging value a caller left in them. */
function withoutPaging(q: Query): Query {
  const out = { ...q };
  delete out.limit;
  delete out.offset;
  delete out.cursor;
  return out;
}
