// The host page's queries and mutations. Keys come from qk (src/api/queryKeys.ts).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, seg } from '../../api/client';
import { qk } from '../../api/queryKeys';
import type {
  DeliveriesPage,
  DeliveryRow,
  Host,
  HostWithState,
  InstallTokenReissued,
  L1Config,
  L1ConfigSaved,
  MetricsPage,
  ProvisioningPayload,
  ProvisioningRequest,
  RotatedHost,
  SystemInfo,
  UpdateHostBody,
} from '../../api/types';

/** How often the page re-reads the host so its status follows the agent. */
export const HOST_POLL_MS = 5_000;
/** How often the metrics chart re-reads the stored history. */
export const METRICS_POLL_MS = 30_000;
/** How often the delivery history is re-read. */
export const DELIVERIES_POLL_MS = 5_000;

const base = (id: string) => `/v1/user/hosts/${seg(id)}`;

export function useHost(id: string) {
  return useQuery({
    queryKey: qk.hosts.detail(id),
    queryFn: ({ signal }) => api.get<HostWithState>(base(id), undefined, signal),
    refetchInterval: HOST_POLL_MS,
  });
}

export function useUpdateHost(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: UpdateHostBody) => api.put<Host>(base(id), b),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.hosts.all }),
  });
}

export function useDeleteHost(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<unknown>(base(id)),
    onSuccess: () => {
      qc.removeQueries({ queryKey: qk.hosts.detail(id) });
      return qc.invalidateQueries({ queryKey: qk.hosts.all });
    },
  });
}

export function useReissueInstallToken(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<InstallTokenReissued>(`${base(id)}/install-token`),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.hosts.detail(id) }),
  });
}

export function useRotateSecret(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<RotatedHost>(`${base(id)}/rotate-secret`),
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.hosts.detail(id) }),
  });
}

/** Fetches the host's provisioning payload; like a re-issue, it issues new install credentials. */
export function useProvisioningPayload(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: ProvisioningRequest) => api.post<ProvisioningPayload>(`${base(id)}/provisioning-payload`, b),
    meta: { errorShownInline: true },
    onSuccess: () => qc.invalidateQueries({ queryKey: qk.hosts.detail(id) }),
  });
}

/** The last system information read this visit; never fetched by itself (each read is charged). */
export function useSysinfoCache(id: string) {
  return useQuery<SystemInfo | null>({
    queryKey: qk.hosts.sysinfo(id),
    queryFn: () => null,
    enabled: false,
    staleTime: Infinity,
    gcTime: 30 * 60_000,
  });
}

export function useRefreshSysinfo(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.post<SystemInfo>(`${base(id)}/system/info`),
    meta: { errorShownInline: true },
    onSuccess: (info) => qc.setQueryData(qk.hosts.sysinfo(id), info),
    onSettled: () => qc.invalidateQueries({ queryKey: qk.balance }),
  });
}

/**
 * Where a metrics chart reads a host's stored history from: the query key's
 * prefix and the fetch (the admin console reads /v1/admin/hosts/{id}/metrics).
 * Absent: the user console's route.
 */
export interface MetricsSource {
  key: readonly unknown[];
  fetch: (limit: number, signal: AbortSignal) => Promise<MetricsPage>;
}

export function useMetrics(id: string, limit: number, source?: MetricsSource) {
  return useQuery({
    queryKey: source ? [...source.key, 'metrics', limit] : qk.hosts.metrics(id, limit),
    queryFn: ({ signal }) =>
      source ? source.fetch(limit, signal) : api.get<MetricsPage>(`${base(id)}/metrics`, { limit }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: METRICS_POLL_MS,
  });
}

export function useSaveL1(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: L1Config) => api.put<L1ConfigSaved>(`${base(id)}/l1-config`, b),
    meta: { errorShownInline: true },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: qk.hosts.detail(id) });
      void qc.invalidateQueries({ queryKey: ['hosts', 'detail', id, 'deliveries'] });
    },
  });
}

export function useDeliveries(id: string, limit: number) {
  return useQuery({
    queryKey: qk.hosts.deliveries(id, limit),
    queryFn: ({ signal }) =>
      api.get<DeliveriesPage>(`${base(id)}/webhook-deliveries`, { limit }, signal),
    placeholderData: keepPreviousData,
    refetchInterval: DELIVERIES_POLL_MS,
  });
}

export function useRetryDelivery(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      api.post<DeliveryRow>(`${base(id)}/webhook-deliveries/${seg(deliveryId)}/retry`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['hosts', 'detail', id, 'deliveries'] }),
  });
}
