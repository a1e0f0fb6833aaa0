// The signed-in admin and the session actions (sign in, sign out, step-up).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { adminApi, adminClient } from './api';
import { aqk } from './queryKeys';
import type { AdminAuthResp, AdminInfo, StepUp } from './types';

/** How often the console re-reads /v1/admin/me, so a disabled admin or an ended session is noticed within seconds. */
export const ME_POLL_MS = 5_000;

export function useAdminMe() {
  return useQuery({
    queryKey: aqk.me,
    queryFn: ({ signal }) => adminApi.get<AdminInfo>('/v1/admin/me', undefined, signal),
    refetchInterval: ME_POLL_MS,
    refetchIntervalInBackground: true,
  });
}

export function useAdminSignIn() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (c: { username: string; password: string }) => adminApi.post<AdminAuthResp>('/v1/admin/auth/login', c),
    meta: { errorShownInline: true },
    onSuccess: (res) => {
      qc.clear();
      adminClient.noteSession(true);
      // The body's tokens are ignored: the hub set the gw_admin_at and gw_admin_rt cookies.
      const who = res.admin ?? res.user;
      if (who) qc.setQueryData(aqk.me, who);
    },
  });
}

export function useAdminSignOut() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => adminApi.post<unknown>('/v1/admin/auth/logout', {}),
    onSettled: () => {
      adminClient.noteSession(false);
      void navigate('/admin/signin', { replace: true });
      qc.clear();
    },
    meta: { errorShownInline: true },
  });
}

/** Asks the hub for a step-up token with the admin's password (single use, 5 minutes). */
export async function stepUp(password: string): Promise<string> {
  const r = await adminApi.post<StepUp>('/v1/admin/auth/step-up', { password });
  return r.step_up_token;
}

/** The header a step-up protected write carries. */
export const stepUpHeader = (token: string) => ({ 'X-Step-Up-Token': token });
