import { describe, expect, it } from 'vitest';
import { applyChange, sortOrderFor, sorterToSort, stateFromSearch, stateToQuery, stateToSearch } from './listQuery';
import { HOSTS_SPEC } from './spec';
import { USERS_SPEC } from '../users/spec';

const sp = (s: string) => new URLSearchParams(s);

describe('hosts list state ↔ URL', () => {
  it('reads defaults from an empty query and writes them back as nothing', () => {
    const s = stateFromSearch(HOSTS_SPEC, sp(''));
    expect(s).toEqual({ q: undefined, filters: {}, sort: '-created_at', limit: 20, offset: 0 });
    expect(stateToSearch(HOSTS_SPEC, s).toString()).toBe('');
  });

  it('round-trips search, every filter, sort and page', () => {
    const url = 'q=alice%40ex&status=online&online=true&os=windows&agent_version=1.2.3&sort=-user_email&page=3&size=50';
    const s = stateFromSearch(HOSTS_SPEC, sp(url));
    expect(s).toEqual({
      q: 'alice@ex',
      filters: { status: 'online', online: 'true', os: 'windows', agent_version: '1.2.3' },
      sort: '-user_email',
      limit: 50,
      offset: 100,
    });
    expect(stateToSearch(HOSTS_SPEC, s).toString()).toBe(url);
  });

  it('drops values the hub would refuse', () => {
    const s = stateFromSearch(HOSTS_SPEC, sp('status=flying&online=maybe&sort=-password&page=-2&size=9999&q=%20%20'));
    expect(s).toEqual({ q: undefined, filters: {}, sort: '-created_at', limit: 20, offset: 0 });
  });

  it('gives the hub its query parameters', () => {
    const s = stateFromSearch(HOSTS_SPEC, sp('q=10.0.0&online=false&sort=name&page=2'));
    expect(stateToQuery(s)).toEqual({ q: '10.0.0', online: 'false', sort: 'name', limit: 20, offset: 20 });
  });
});

describe('applyChange', () => {
  const on3 = stateFromSearch(HOSTS_SPEC, sp('q=a&status=online&page=3'));

  it('goes back to the first page when the search, a filter, the sort or the size changes', () => {
    expect(applyChange(on3, { q: 'b' }).offset).toBe(0);
    expect(applyChange(on3, { q: undefined }).offset).toBe(0);
    expect(applyChange(on3, { filters: { os: 'linux' } }).offset).toBe(0);
    expect(applyChange(on3, { filters: { status: undefined } })).toMatchObject({ filters: {}, offset: 0 });
    expect(applyChange(on3, { sort: 'name' }).offset).toBe(0);
  });

  it('keeps the page when nothing changed, and takes an explicit page', () => {
    expect(applyChange(on3, { q: 'a' }).offset).toBe(40);
    expect(applyChange(on3, { filters: { status: 'online' } }).offset).toBe(40);
    expect(applyChange(on3, { limit: 20, offset: 60 }).offset).toBe(60);
  });
});

describe('sort', () => {
  it('maps antd sorters to the hub and back', () => {
    expect(sorterToSort(HOSTS_SPEC, 'user_email', 'descend')).toBe('-user_email');
    expect(sorterToSort(HOSTS_SPEC, 'agent_version', 'ascend')).toBe('agent_version');
    expect(sorterToSort(HOSTS_SPEC, 'name', null)).toBe('-created_at');
    expect(sorterToSort(HOSTS_SPEC, 'os', 'ascend')).toBe('-created_at');
    expect(sortOrderFor('-last_seen_at', 'last_seen_at')).toBe('descend');
    expect(sortOrderFor('name', 'name')).toBe('ascend');
    expect(sortOrderFor('name', 'created_at')).toBeNull();
  });
});

describe('users list state', () => {
  it('knows the users filters and sorts', () => {
    const s = stateFromSearch(USERS_SPEC, sp('q=bob&status=suspended&sort=display_name&os=linux'));
    expect(s).toMatchObject({ q: 'bob', filters: { status: 'suspended' }, sort: 'display_name' });
    expect(stateFromSearch(USERS_SPEC, sp('status=banned&sort=-user_email'))).toMatchObject({ filters: {}, sort: '-created_at' });
  });
});
