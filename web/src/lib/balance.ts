// The low-balance rule. The hub has no route a user can read prices from
// (docs/billing.md: prices are admin pricing rules), so without a known
// price the balance is low when it is zero or less — no call can be paid.
// When a price becomes readable, pass the cheapest per-call price.

/** True when `tokens` cannot pay for one call costing `cheapestPrice` (or, unknown, when it is ≤ 0). */
export function isLowBalance(tokens: number | null | undefined, cheapestPrice?: number | null): boolean {
  if (tokens === null || tokens === undefined || !Number.isFinite(tokens)) return false;
  if (cheapestPrice !== null && cheapestPrice !== undefined && cheapestPrice > 0) return tokens < cheapestPrice;
  return tokens <= 0;
}
