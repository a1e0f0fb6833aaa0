import { describe, expect, it } from 'vitest';
import { localToRFC3339, rfc3339ToLocal, targetLink } from './audit';

describe('audit targets', () => {
  it('links each target type to its page', () => {
    expect(targetLink('user', 'u 1')).toBe('/admin/users/u%201');
    expect(targetLink('host', 'h1')).toBe('/admin/hosts/h1');
    expect(targetLink('admin', 'a1')).toBe('/admin/admins');
    expect(targetLink('pricing_rule', 'r1')).toBe('/admin/pricing');
    expect(targetLink('billing', 'mode')).toBe('/admin/pricing');
    expect(targetLink('gw_version', '1.2.3')).toBe('/admin/versions');
    expect(targetLink('recharge', 'r')).toBe('/admin/recharges');
    expect(targetLink('other', 'x')).toBeNull();
  });

  it('round-trips the time filter between the input and RFC 3339', () => {
    const iso = localToRFC3339('2026-03-04T05:06');
    expect(iso).toMatch(/^2026-03-0\dT\d\d:06:00\.000Z$/);
    expect(rfc3339ToLocal(iso)).toBe('2026-03-04T05:06');
    expect(localToRFC3339('')).toBeUndefined();
    expect(localToRFC3339('garbage')).toBeUndefined();
    expect(rfc3339ToLocal('garbage')).toBe('');
  });
});
