import { describe, expect, it } from 'vitest';
import type { HostStatus } from '../api/types';
import {
  filterQueryFromParams,
  hostListQuery,
  hostsFiltered,
  paramsFromFilterQuery,
  hostParamsFromSearch,
  hostParamsToSearch,
  pageFromSearch,
  pageToParams,
  pageToSearch,
  paramsToPage,
  sortOrderFor,
  sorterToSort,
} from './paging';

describe('paging', () => {
  it('maps antd pages to limit/offset and back', () => {
    expect(pageToParams(1, 20)).toEqual({ limit: 20, offset: 0 });
    expect(pageToParams(3, 50)).toEqual({ limit: 50, offset: 100 });
    expect(pageToParams(0, 0)).toEqual({ limit: 20, offset: 0 });
    expect(paramsToPage({ limit: 50, offset: 100 })).toBe(3);
  });

  it('maps antd sorters to the hub sort and back', () => {
    expect(sorterToSort('name', 'ascend')).toBe('name');
    expect(sorterToSort('last_seen_at', 'descend')).toBe('-last_seen_at');
    expect(sorterToSort('name', null)).toBeUndefined();
    expect(sorterToSort('os', 'ascend')).toBeUndefined();
    expect(sortOrderFor('-created_at', 'created_at')).toBe('descend');
    expect(sortOrderFor('-created_at', 'name')).toBeNull();
  });

  it('reads the hosts list state from the URL with defaults', () => {
    expect(hostParamsFromSearch(new URLSearchParams(''))).toEqual({ limit: 20, offset: 0, sort: '-created_at', q: undefined, status: undefined });
    expect(hostParamsFromSearch(new URLSearchParams('q=web&status=online&sort=name&page=2&size=50'))).toEqual({
      limit: 50,
      offset: 50,
      q: 'web',
      status: 'online',
      sort: 'name',
    });
    // bad values fall back to the defaults
    expect(hostParamsFromSearch(new URLSearchParams('status=weird&sort=evil&page=-1&size=9999'))).toEqual({
      limit: 20,
      offset: 0,
      sort: '-created_at',
      q: undefined,
      status: undefined,
    });
  });

  it('writes the state back, leaving defaults out (round trip)', () => {
    const p = hostParamsFromSearch(new URLSearchParams('q=web&status=offline&sort=-name&page=3&size=10'));
    const sp = hostParamsToSearch(p);
    expect(sp.toString()).toBe('q=web&status=offline&sort=-name&page=3&size=10');
    expect(hostParamsFromSearch(sp)).toEqual(p);
    expect(hostParamsToSearch(hostParamsFromSearch(new URLSearchParams())).toString()).toBe('');
  });

  it('keeps repeated tag filters and the other criteria in the URL (round trip)', () => {
    const p = hostParamsFromSearch(
      new URLSearchParams('tag=env%3Dprod&tag=role&tag=bad+key&tag=role&online=true&os=linux&agent_version=1.2.0&filter=f1'),
    );
    expect(p.tag).toEqual(['env=prod', 'role']);
    expect(p).toMatchObject({ online: 'true', os: 'linux', agent_version: '1.2.0', filter: 'f1' });
    const sp = hostParamsToSearch(p);
    expect(sp.getAll('tag')).toEqual(['env=prod', 'role']);
    expect(hostParamsFromSearch(sp)).toEqual(p);
    expect(hostParamsFromSearch(new URLSearchParams('online=maybe')).online).toBeUndefined();
    expect(hostsFiltered(p)).toBe(true);
    expect(hostsFiltered(hostParamsFromSearch(new URLSearchParams('filter=f1&page=2')))).toBe(false);
    expect(hostListQuery(p)).not.toHaveProperty('filter');
  });

  it('maps the list criteria to a saved filter query and back', () => {
    const p = hostParamsFromSearch(new URLSearchParams('q=web&status=online&tag=env%3Dprod&online=false&page=2'));
    const f = filterQueryFromParams(p);
    expect(f).toEqual({ q: 'web', status: 'online', online: false, tags: ['env=prod'] });
    expect(paramsFromFilterQuery(f)).toEqual({
      q: 'web',
      status: 'online',
      online: 'false',
      os: undefined,
      agent_version: undefined,
      tag: ['env=prod'],
    });
    // Applying an empty filter clears every criterion.
    expect(paramsFromFilterQuery({})).toEqual({
      q: undefined,
      status: undefined,
      online: undefined,
      os: undefined,
      agent_version: undefined,
      tag: undefined,
    });
    expect(paramsFromFilterQuery({ status: 'nonsense' as HostStatus, tags: ['ok', 'not ok'] })).toMatchObject({ status: undefined, tag: ['ok'] });
  });

  it('keeps two paged tables apart with prefixes', () => {
    let sp = new URLSearchParams('tab=1');
    sp = pageToSearch(sp, { limit: 20, offset: 40 }, 'ev_');
    sp = pageToSearch(sp, { limit: 10, offset: 0 }, 'rc_');
    expect(sp.toString()).toBe('tab=1&ev_page=3&rc_size=10');
    expect(pageFromSearch(sp, 'ev_')).toEqual({ limit: 20, offset: 40 });
    expect(pageFromSearch(sp, 'rc_')).toEqual({ limit: 10, offset: 0 });
  });
});
