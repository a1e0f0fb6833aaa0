// Balance, billing events and recharge orders.
import { useMutation, useQuery, useQueryClient, type Query } from '@tanstack/react-query';
import { api } from '../api/client';
import { qk } from '../api/queryKeys';
import type { Balance, BillingEventPage, PriceList, RechargeCreated, RechargePage } from '../api/types';
import { cheapestPrice, isLowBalance } from '../lib/balance';
import type { PageParams } from '../lib/paging';
import { useCursorPages } from '../lib/useCursorPages';

export function useBalance() {
  return useQuery({
    queryKey: qk.balance,
    queryFn: ({ signal }) => api.get<Balance>('/v1/user/billing/balance', undefined, signal),
    refetchInterval: 10_000,
  });
}

/**
 * The prices in force. They change rarely (admin pricing rules), so the
 * answer stays fresh for 5 minutes. A hub without the route (404) or any
 * failure leaves `data` undefined; callers fall back to the ≤ 0 rule.
 */
export function usePrices() {
  return useQuery({
    queryKey: qk.billing.prices,
    queryFn: ({ signal }) => api.get<PriceList>('/v1/user/billing/prices', undefined, signal),
    staleTime: 5 * 60_000,
    gcTime: 30 * 60_000,
  });
}

/** Whether the balance is below the price of one call (see src/lib/balance.ts); false while the balance loads. */
export function useLowBalance(): boolean {
  const { data: balance } = useBalance();
  const { data: prices } = usePrices();
  return isLowBalance(balance?.tokens, cheapestPrice(prices?.items));
}

export function useBillingEvents(p: PageParams) {
  return useCursorPages({
    list: 'user.billing.events',
    queryKey: qk.billing.events(p),
    page: p,
    fetch: (query, signal) => api.get<BillingEventPage>('/v1/user/billing/events', query, signal),
  });
}

type Interval = number | false | ((q: Query<RechargePage, Error, RechargePage, readonly unknown[]>) => number | false | undefined);

/**
 * Recharge orders; `refetch` polls (a number of ms, or a function of the
 * query deciding per answer); `list` names the table for its cursors.
 */
export function useRecharges(p: PageParams, refetch: Interval = false, list = 'user.billing.recharges') {
  return useCursorPages({
    list,
    queryKey: qk.billing.recharges(p),
    page: p,
    fetch: (query, signal) => api.get<RechargePage>('/v1/user/billing/recharges', query, signal),
    refetchInterval: refetch,
    // The pay page is another tab: keep following the order while this one is hidden.
    refetchIntervalInBackground: refetch !== false,
  });
}

export function useCreateRecharge() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (amountCny: number) => api.post<RechargeCreated>('/v1/user/billing/recharge', { amount_cny: amountCny }),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.billing.all }),
  });
}
