// Balance, billing events and recharge orders.
import { keepPreviousData, useMutation, useQuery, useQueryClient, type Query } from '@tanstack/react-query';
import { api } from '../api/client';
import { qk } from '../api/queryKeys';
import type { Balance, BillingEventPage, RechargeCreated, RechargePage } from '../api/types';
import type { PageParams } from '../lib/paging';

export function useBalance() {
  return useQuery({
    queryKey: qk.balance,
    queryFn: ({ signal }) => api.get<Balance>('/v1/user/billing/balance', undefined, signal),
    refetchInterval: 10_000,
  });
}

export function useBillingEvents(p: PageParams) {
  return useQuery({
    queryKey: qk.billing.events(p),
    queryFn: ({ signal }) => api.get<BillingEventPage>('/v1/user/billing/events', { ...p }, signal),
    placeholderData: keepPreviousData,
  });
}

type Interval = number | false | ((q: Query<RechargePage, Error, RechargePage, readonly unknown[]>) => number | false | undefined);

/** Recharge orders; `refetch` polls (a number of ms, or a function of the query deciding per answer). */
export function useRecharges(p: PageParams, refetch: Interval = false) {
  return useQuery({
    queryKey: qk.billing.recharges(p),
    queryFn: ({ signal }) => api.get<RechargePage>('/v1/user/billing/recharges', { ...p }, signal),
    placeholderData: keepPreviousData,
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
