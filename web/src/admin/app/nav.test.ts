import { describe, expect, it } from 'vitest';
import { navFor } from './nav';

describe('the admin nav by role', () => {
  it('shows the admins section to owners only', () => {
    const sections = (role: 'owner' | 'operator' | 'finance' | 'viewer') => navFor(role).map((n) => n.section);
    expect(sections('owner')).toEqual(['dashboard', 'users', 'hosts', 'recharges', 'pricing', 'versions', 'audit', 'admins']);
    for (const role of ['operator', 'finance', 'viewer'] as const) {
      expect(sections(role)).toEqual(['dashboard', 'users', 'hosts', 'recharges', 'pricing', 'versions', 'audit']);
    }
  });
});
