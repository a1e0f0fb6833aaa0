import { describe, expect, it } from 'vitest';
import { isLowBalance } from './balance';

describe('isLowBalance', () => {
  it('without a known price: low at zero or below', () => {
    expect(isLowBalance(0)).toBe(true);
    expect(isLowBalance(-1)).toBe(true);
    expect(isLowBalance(0.001)).toBe(false);
  });
  it('with a price: low below the price of one call', () => {
    expect(isLowBalance(0.09, 0.1)).toBe(true);
    expect(isLowBalance(0.1, 0.1)).toBe(false);
    expect(isLowBalance(5, 0)).toBe(false);
  });
  it('unknown balance is not low', () => {
    expect(isLowBalance(undefined)).toBe(false);
  });
});
