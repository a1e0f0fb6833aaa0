import { describe, expect, it } from 'vitest';
import { safeNext } from './nav';

describe('safeNext', () => {
  it('follows same-site paths only', () => {
    expect(safeNext('/hosts/abc')).toBe('/hosts/abc');
    expect(safeNext(null)).toBe('/hosts');
    expect(safeNext('https://evil.example')).toBe('/hosts');
    expect(safeNext('//evil.example')).toBe('/hosts');
    expect(safeNext('/\\evil.example')).toBe('/hosts');
  });
});
