import { describe, expect, it } from 'vitest';
import { cheapestPrice, isLowBalance } from './balance';

describe('isLowBalance', () => {
  it('without a known price (prices route failed or absent): low at zero or below', () => {
    expect(isLowBalance(0)).toBe(true);
    expect(isLowBalance(-1)).toBe(true);
    expect(isLowBalance(0.001)).toBe(false);
    expect(isLowBalance(0, null)).toBe(true);
    expect(isLowBalance(0.5, null)).toBe(false);
  });
  it('with a price: low below the price of one call', () => {
    expect(isLowBalance(0.09, 0.1)).toBe(true);
    expect(isLowBalance(0.1, 0.1)).toBe(false);
    expect(isLowBalance(0, 0.1)).toBe(true);
    expect(isLowBalance(5, 0)).toBe(false);
  });
  it('unknown balance is not low', () => {
    expect(isLowBalance(undefined)).toBe(false);
    expect(isLowBalance(null, 1)).toBe(false);
  });
});

describe('cheapestPrice', () => {
  it('takes the cheapest price above zero', () => {
    const items = [
      { code: 'free', token_amount: 0 },
      { code: 'b', token_amount: 2 },
      { code: 'a', token_amount: 0.5 },
    ];
    expect(cheapestPrice(items)).toBe(0.5);
    expect(isLowBalance(0.4, cheapestPrice(items))).toBe(true);
    expect(isLowBalance(0.5, cheapestPrice(items))).toBe(false);
  });
  it('is null when nothing is charged or the list is missing (the ≤ 0 rule applies)', () => {
    expect(cheapestPrice([{ token_amount: 0 }])).toBeNull();
    expect(cheapestPrice([])).toBeNull();
    expect(cheapestPrice(undefined)).toBeNull();
    expect(isLowBalance(0.2, cheapestPrice(undefined))).toBe(false);
    expect(isLowBalance(0, cheapestPrice(undefined))).toBe(true);
  });
});
