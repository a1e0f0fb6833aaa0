// Maps between an antd Table's paging/sorting, the URL's search params and
// the hub's `limit`/`offset`/`sort` query parameters.
import type { SorterResult } from 'antd/es/table/interface';
import type { HostSort, HostStatus, SavedFilterQuery } from '../api/types';
import { cleanTagExprs } from './tags';

export interface PageParams {
  limit: number;
  offset: number;
}

export type { HostSort, HostStatus };
// Every sort value of the hub, keyed by the generated type: a value the
// hub's OpenAPI enum gains or loses fails the type check here.
const HOST_SORT_KEYS: Record<HostSort, true> = {
  name: true,
  '-name': true,
  created_at: true,
  '-created_at': true,
  last_seen_at: true,
  '-last_seen_at': true,
};
export const HOST_SORTS = Object.keys(HOST_SORT_KEYS) as readonly HostSort[];
// Every host status of the hub, in the order the filter offers them, keyed
// by the generated type the same way.
const HOST_STATUS_KEYS: Record<HostStatus, true> = {
  pending: true,
  online: true,
  stale: true,
  offline: true,
  banned: true,
};
export const HOST_STATUSES = Object.keys(HOST_STATUS_KEYS) as readonly HostStatus[];

export interface HostListParams extends PageParams {
  q?: string;
  status?: HostStatus;
  /** Tag expressions, all must match (repeated `tag=` in the URL and the query). */
  tag?: string[];
  /** `true`/`false`: connected now or not. */
  online?: 'true' | 'false';
  os?: string;
  agent_version?: string;
  sort: HostSort;
  /** The saved filter the criteria came from (the console's memory, not sent to the hub). */
  filter?: string;
}

/** The criteria a saved filter holds (contract issue 26 §1). */
export type HostFilterQuery = SavedFilterQuery;

/** The list's criteria as a saved filter's query (empty ones left out). */
export function filterQueryFromParams(p: HostListParams): HostFilterQuery {
  const out: HostFilterQuery = {};
  if (p.q) out.q = p.q;
  if (p.status) out.status = p.status;
  if (p.online) out.online = p.online === 'true';
  if (p.os) out.os = p.os;
  if (p.agent_version) out.agent_version = p.agent_version;
  if (p.tag?.length) out.tags = [...p.tag];
  return out;
}

/** A saved filter's query as the list's criteria (each one set, so it replaces what the list had). */
export function paramsFromFilterQuery(f: HostFilterQuery | null | undefined): Partial<HostListParams> {
  const q = f ?? {};
  const tag = cleanTagExprs(q.tags ?? []);
  const st = q.status ?? '';
  return {
    q: q.q?.trim() || undefined,
    status: (HOST_STATUSES as readonly string[]).includes(st) ? (st as HostStatus) : undefined,
    online: q.online === undefined || q.online === null ? undefined : q.online ? 'true' : 'false',
    os: q.os || undefined,
    agent_version: q.agent_version || undefined,
    tag: tag.length ? tag : undefined,
  };
}

/** Whether any criterion narrows the hosts list. */
export function hostsFiltered(p: HostListParams): boolean {
  return Boolean(p.q || p.status || p.tag?.length || p.online || p.os || p.agent_version);
}

/** The hub's query for a hosts list: the console-only `filter` left out. */
export function hostListQuery(p: HostListParams): Omit<HostListParams, 'filter'> {
  const rest = { ...p };
  delete rest.filter;
  return rest;
}

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;
export const DEFAULT_HOST_SORT: HostSort = '-created_at';

/** antd's page number (1-based) and size → limit/offset. */
export function pageToParams(page: number, pageSize: number): PageParams {
  const size = Math.max(1, Math.floor(pageSize) || DEFAULT_PAGE_SIZE);
  const p = Math.max(1, Math.floor(page) || 1);
  return { limit: size, offset: (p - 1) * size };
}

/** limit/offset → antd's page number (1-based). */
export function paramsToPage(p: PageParams): number {
  return Math.floor(p.offset / p.limit) + 1;
}

/** antd's sorter (field + 'ascend'|'descend'|null) → the hub's sort value. */
export function sorterToSort(field: unknown, order: 'ascend' | 'descend' | null | undefined): HostSort | undefined {
  if (!order || typeof field !== 'string') return undefined;
  const s = (order === 'descend' ? '-' : '') + field;
  return (HOST_SORTS as readonly string[]).includes(s) ? (s as HostSort) : undefined;
}

/** The hub's sort value → antd's sortOrder for the column `field`. */
export function sortOrderFor(sort: HostSort, field: string): 'ascend' | 'descend' | null {
  if (sort === field) return 'ascend';
  if (sort === '-' + field) return 'descend';
  return null;
}

/** The first sorter of antd's Table onChange. */
export function firstSorter<T>(sorter: SorterResult<T> | SorterResult<T>[]): SorterResult<T> | undefined {
  return Array.isArray(sorter) ? sorter[0] : sorter;
}

function intParam(v: string | null, def: number, min: number, max: number): number {
  const n = v === null ? NaN : Number(v);
  return Number.isInteger(n) && n >= min && n <= max ? n : def;
}

/** Reads a paged list's state from the URL (`<prefix>page`, `<prefix>size`), with defaults for missing or bad values. */
export function pageFromSearch(sp: URLSearchParams, prefix = ''): PageParams {
  const size = intParam(sp.get(prefix + 'size'), DEFAULT_PAGE_SIZE, 1, 200);
  const page = intParam(sp.get(prefix + 'page'), 1, 1, 100000);
  return pageToParams(page, size);
}

/** Reads the hosts list's state from the URL (`q`, `status`, `sort`, `page`, `size`). */
export function hostParamsFromSearch(sp: URLSearchParams): HostListParams {
  const q = sp.get('q')?.trim() || undefined;
  const st = sp.get('status');
  const status = (HOST_STATUSES as readonly string[]).includes(st ?? '') ? (st as HostStatus) : undefined;
  const so = sp.get('sort');
  const sort = (HOST_SORTS as readonly string[]).includes(so ?? '') ? (so as HostSort) : DEFAULT_HOST_SORT;
  const out: HostListParams = { ...pageFromSearch(sp), q, status, sort };
  const tag = cleanTagExprs(sp.getAll('tag'));
  if (tag.length) out.tag = tag;
  const on = sp.get('online');
  if (on === 'true' || on === 'false') out.online = on;
  const os = sp.get('os')?.trim();
  if (os) out.os = os;
  const av = sp.get('agent_version')?.trim();
  if (av) out.agent_version = av;
  const filter = sp.get('filter')?.trim();
  if (filter) out.filter = filter;
  return out;
}

/** Writes a hosts list's state into URL search params, leaving defaults out. */
export function hostParamsToSearch(p: HostListParams): URLSearchParams {
  const sp = new URLSearchParams();
  if (p.q) sp.set('q', p.q);
  if (p.status) sp.set('status', p.status);
  for (const t of p.tag ?? []) sp.append('tag', t);
  if (p.online) sp.set('online', p.online);
  if (p.os) sp.set('os', p.os);
  if (p.agent_version) sp.set('agent_version', p.agent_version);
  if (p.filter) sp.set('filter', p.filter);
  if (p.sort !== DEFAULT_HOST_SORT) sp.set('sort', p.sort);
  const page = paramsToPage(p);
  if (page > 1) sp.set('page', String(page));
  if (p.limit !== DEFAULT_PAGE_SIZE) sp.set('size', String(p.limit));
  return sp;
}

/** Writes a plain paged list's state (page, size) into URL search params under a prefix. */
export function pageToSearch(sp: URLSearchParams, p: PageParams, prefix = ''): URLSearchParams {
  const out = new URLSearchParams(sp);
  const page = paramsToPage(p);
  if (page > 1) out.set(prefix + 'page', String(page));
  else out.delete(prefix + 'page');
  if (p.limit !== DEFAULT_PAGE_SIZE) out.set(prefix + 'size', String(p.limit));
  else out.delete(prefix + 'size');
  return out;
}
