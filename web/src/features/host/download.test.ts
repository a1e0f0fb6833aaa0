import { describe, expect, it } from 'vitest';
import { dispositionName } from './download';

describe('dispositionName', () => {
  it('reads plain and RFC 5987 names', () => {
    expect(dispositionName('attachment; filename="install-abc.ps1"')).toBe('install-abc.ps1');
    expect(dispositionName("attachment; filename*=UTF-8''a%20b.ps1")).toBe('a b.ps1');
    expect(dispositionName(null)).toBeNull();
    expect(dispositionName('inline')).toBeNull();
  });
});
