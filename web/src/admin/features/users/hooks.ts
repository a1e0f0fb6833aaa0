// The admin users pages' queries and mutations (the /v1/admin/users routes,
// and the recharges and hosts lists filtered by user).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { adminApi, seg } from '../../api';
import type { AdminApiKey, AdminUserDetail, BillingEvent, LedgerCheck, Page, RechargePage, UserPage } from '../../types';
import type { PageParams } from '../../../lib/paging';
import { useCursorPages } from '../../../lib/useCursorPages';
import type { AdminHostsPage } from '../hosts/types';
import { adminHostKeys } from '../hosts/hooks';
import { stateToQuery, type ListState } from '../hosts/listQuery';

export const adminUserKeys = {
  all: ['admin', 'users'] as const,
  list: (s: ListState) => ['admin', 'users', 'list', s] as const,
  detail: (id: string) => ['admin', 'users', 'detail', id] as const,
  ledger: (id: string, p: PageParams) => ['admin', 'users', 'detail', id, 'ledger', p] as const,
  recharges: (id: string, p: PageParams) => ['admin', 'users', 'detail', id, 'recharges', p] as const,
  apiKeys: (id: string) => ['admin', 'users', 'detail', id, 'api-keys'] as const,
  ledgerCheck: (id: string) => ['admin', 'users', 'detail', id, 'ledger-check'] as const,
};

const base = (id: string) => `/v1/admin/users/${seg(id)}`;

export function useAdminUsers(s: ListState) {
  return useCursorPages({
    list: 'admin.users',
    queryKey: adminUserKeys.list(s),
    page: s,
    criteria: stateToQuery(s),
    fetch: (query, signal) => adminApi.get<UserPage>('/v1/admin/users', query, signal),
  });
}

export function useAdminUser(id: string) {
  return useQuery({
    queryKey: adminUserKeys.detail(id),
    queryFn: ({ signal }) => adminApi.get<AdminUserDetail>(base(id), undefined, signal),
    refetchInterval: 30_000,
  });
}

export function useUserLedger(id: string, p: PageParams) {
  return useCursorPages({
    list: `admin.users.${id}.ledger`,
    queryKey: adminUserKeys.ledger(id, p),
    page: p,
    fetch: (query, signal) => adminApi.get<Page<BillingEvent>>(`${base(id)}/billing-events`, query, signal),
  });
}

/** The balance against the sum of the user's billing events, read when asked (refetch). */
export function useLedgerCheck(id: string) {
  return useQuery({
    queryKey: adminUserKeys.ledgerCheck(id),
    queryFn: ({ signal }) => adminApi.get<LedgerCheck>(`${base(id)}/ledger-check`, undefined, signal),
    enabled: false,
    gcTime: 0,
  });
}

export function useUserRecharges(id: string, p: PageParams) {
  return useCursorPages({
    list: 'admin.users.recharges',
    queryKey: adminUserKeys.recharges(id, p),
    page: p,
    criteria: { user_id: id },
    fetch: (query, signal) => adminApi.get<RechargePage>('/v1/admin/recharges', query, signal),
  });
}

export function useUserHosts(id: string, p: PageParams) {
  return useCursorPages({
    list: 'admin.users.hosts',
    queryKey: [...adminHostKeys.all, 'by-user', id, p],
    page: p,
    criteria: { user_id: id },
    fetch: (query, signal) => adminApi.get<AdminHostsPage>('/v1/admin/hosts', query, signal),
    refetchInterval: 5_000,
  });
}

export function useUserApiKeys(id: string) {
  return useQuery({
    queryKey: adminUserKeys.apiKeys(id),
    queryFn: ({ signal }) => adminApi.get<{ items?: AdminApiKey[] | null }>(`${base(id)}/api-keys`, undefined, signal),
  });
}

function useUserWrite<A, T>(fn: (a: A) => Promise<T>, inline = false) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    meta: inline ? { errorShownInline: true } : undefined,
    onSuccess: () => qc.invalidateQueries({ queryKey: adminUserKeys.all }),
  });
}

export const useSuspendUser = (id: string) => useUserWrite(() => adminApi.post<unknown>(`${base(id)}/suspend`));
export const useResumeUser = (id: string) => useUserWrite(() => adminApi.post<unknown>(`${base(id)}/resume`));
// An adjustment carries an Idempotency-Key (docs/billing.md): a resend of
// the same adjustment, after a dropped answer or a second click, changes
// the balance once.
export const useAdjustBalance = (id: string) =>
  useUserWrite(
    ({ key, ...b }: { tokens: number; reason: string; key: string }) =>
      adminApi.post<{ ok: boolean; balance_after: number }>(`${base(id)}/balance/adjust`, b, { 'Idempotency-Key': key }),
    true,
  );

// newIdempotencyKey is 128 random bits in hex (crypto.getRandomValues works
// on a plain-http hub, where crypto.randomUUID does not).
export function newIdempotencyKey(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}
