// A server-paged admin list's state (search, filters, sort, page) and its
// two mirrors: the page's URL query (so a link or the back button restores
// the list) and the hub's query parameters. Pure; the users and hosts lists
// each describe their own filters and sorts with a ListSpec.
import { DEFAULT_PAGE_SIZE, pageFromSearch, paramsToPage } from '../../../lib/paging';

export interface ListSpec {
  /** Sort columns the hub accepts (each also with `-`). */
  sorts: readonly string[];
  /** The hub's default sort; left out of the URL. */
  defaultSort: string;
  /** Filters: allowed values, or 'text' for free text. */
  filters: Record<string, readonly string[] | 'text'>;
}

export interface ListState {
  q?: string;
  filters: Record<string, string | undefined>;
  sort: string;
  limit: number;
  offset: number;
}

const MAX_TEXT = 200;

function validSort(spec: ListSpec, s: string | null): s is string {
  if (!s) return false;
  const col = s.startsWith('-') ? s.slice(1) : s;
  return spec.sorts.includes(col);
}

/** Reads the list's state from the URL; bad or missing values become the defaults. */
export function stateFromSearch(spec: ListSpec, sp: URLSearchParams): ListState {
  const q = sp.get('q')?.trim().slice(0, MAX_TEXT) || undefined;
  const filters: Record<string, string | undefined> = {};
  for (const [name, allowed] of Object.entries(spec.filters)) {
    const v = sp.get(name)?.trim() ?? '';
    if (!v) continue;
    if (allowed === 'text') filters[name] = v.slice(0, MAX_TEXT);
    else if (allowed.includes(v)) filters[name] = v;
  }
  const so = sp.get('sort');
  const sort = validSort(spec, so) ? so : spec.defaultSort;
  return { q, filters, sort, ...pageFromSearch(sp) };
}

/** Writes the list's state as URL search params, leaving defaults out (stable order). */
export function stateToSearch(spec: ListSpec, s: ListState): URLSearchParams {
  const sp = new URLSearchParams();
  if (s.q) sp.set('q', s.q);
  for (const name of Object.keys(spec.filters)) {
    const v = s.filters[name];
    if (v) sp.set(name, v);
  }
  if (s.sort !== spec.defaultSort) sp.set('sort', s.sort);
  const page = paramsToPage(s);
  if (page > 1) sp.set('page', String(page));
  if (s.limit !== DEFAULT_PAGE_SIZE) sp.set('size', String(s.limit));
  return sp;
}

/** The hub's query parameters for the state (empty values are dropped by the client). */
export function stateToQuery(s: ListState): Record<string, string | number | undefined> {
  return { q: s.q, ...s.filters, sort: s.sort, limit: s.limit, offset: s.offset };
}

/** A change to the state: any change other than paging goes back to the first page. */
export function applyChange(s: ListState, change: Partial<Omit<ListState, 'filters'>> & { filters?: Record<string, string | undefined> }): ListState {
  const filters = { ...s.filters, ...(change.filters ?? {}) };
  for (const k of Object.keys(filters)) if (!filters[k]) delete filters[k];
  const next: ListState = { ...s, ...change, filters };
  const reset =
    next.q !== s.q ||
    Object.keys({ ...s.filters, ...filters }).some((k) => s.filters[k] !== filters[k]) ||
    next.sort !== s.sort ||
    next.limit !== s.limit;
  if (reset && change.offset === undefined) next.offset = 0;
  return next;
}

/** antd's sorter (column key + order) → the hub's sort value, or the default when cleared or unknown. */
export function sorterToSort(spec: ListSpec, field: unknown, order: 'ascend' | 'descend' | null | undefined): string {
  if (!order || typeof field !== 'string' || !spec.sorts.includes(field)) return spec.defaultSort;
  return (order === 'descend' ? '-' : '') + field;
}

/** The hub's sort value → antd's sortOrder for the column `field`. */
export function sortOrderFor(sort: string, field: string): 'ascend' | 'descend' | null {
  if (sort === field) return 'ascend';
  if (sort === '-' + field) return 'descend';
  return null;
}
