import { describe, expect, it } from 'vitest';
import doc from '../../../docs/admin-roles.md?raw';
import { can, PERM_ROUTES, PERMS, type Perm } from './perms';
import { ROLES } from './types';

// Route → roles from the table in docs/admin-roles.md.
function docTable(): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const route = /^`((?:GET|POST|PUT|DELETE) \/v1\/admin\/\S+)`$/.exec(cells[1] ?? '');
    if (route) m.set(route[1]!, cells[2]!.split(',').map((r) => r.trim()));
  }
  return m;
}

describe('perms mirror docs/admin-roles.md', () => {
  const table = docTable();

  it('reads the route table', () => {
    expect(table.get('POST /v1/admin/billing/mode')).toEqual(['owner', 'finance']);
  });

  for (const [perm, routes] of Object.entries(PERM_ROUTES) as [Perm, readonly string[]][]) {
    it(`${perm}: every route's roles are the perm's roles`, () => {
      expect(routes.filter((r) => !table.has(r)), 'routes missing from the doc').toEqual([]);
      for (const r of routes) expect([...table.get(r)!].sort(), r).toEqual([...PERMS[perm]].sort());
    });
  }

  it('every write route of the table is behind a perm', () => {
    const covered = new Set(Object.values(PERM_ROUTES).flat());
    const writes = [...table.keys()].filter(
      (r) => !r.startsWith('GET ') && !r.endsWith('/terminal/ws') && !r.includes('/auth/'),
    );
    expect(writes.filter((r) => !covered.has(r))).toEqual([]);
  });

  it('owner may do everything, viewer nothing', () => {
    for (const p of Object.keys(PERMS) as Perm[]) {
      expect(can('owner', p)).toBe(true);
      expect(can('viewer', p)).toBe(false);
    }
    expect(can('finance', 'hosts.write')).toBe(false);
    expect(can('operator', 'recharges.refund')).toBe(false);
    expect(can('nobody', 'users.write')).toBe(false);
    expect(ROLES).toHaveLength(4);
  });
});
