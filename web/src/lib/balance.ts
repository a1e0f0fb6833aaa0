// The low-balance rule. The hub lists the price in force for each charged
// code (GET /v1/user/billing/prices); the balance is low when it cannot pay
// for one more call at the cheapest of those prices. Without a known price
// (the route failed, is absent, or lists nothing charged) the balance is low
// when it is zero or less — no call can be paid.

/** The cheapest `token_amount` greater than 0, or null when none is. */
export function cheapestPrice(items: readonly { token_amount: number }[] | null | undefined): number | null {
  let min: number | null = null;
  if (!Array.isArray(items)) return null;
  for (const it of items as readonly { token_amount: unknown }[]) {
    const p = it?.token_amount;
    if (typeof p === 'number' && Number.isFinite(p) && p > 0 && (min === null || p < min)) min = p;
  }
  return min;
}

/** True when `tokens` cannot pay for one call costing `cheapest` (or, unknown, when it is ≤ 0). */
export function isLowBalance(tokens: number | null | undefined, cheapest?: number | null): boolean {
  if (tokens === null || tokens === undefined || !Number.isFinite(tokens)) return false;
  if (cheapest !== null && cheapest !== undefined && Number.isFinite(cheapest) && cheapest > 0) return tokens < cheapest;
  return tokens <= 0;
}
