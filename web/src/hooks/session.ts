// The signed-in user and the session actions (sign in, sign up, sign out).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api, noteSession } from '../api/client';
import { qk } from '../api/queryKeys';
import type { AuthResp, User } from '../api/types';

/** How often the console re-reads /v1/user/me, so a suspended or revoked session is noticed within seconds. */
export const ME_POLL_MS = 5_000;

export function useMe() {
  return useQuery({
    queryKey: qk.me,
    queryFn: ({ signal }) => api.get<User>('/v1/user/me', undefined, signal),
    refetchInterval: ME_POLL_MS,
    // A hidden tab keeps checking too, so it never shows a dead session as live.
    refetchIntervalInBackground: true,
  });
}

interface Creds {
  email: string;
  password: string;
}

function useAuthMutation(path: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (c: Creds) => api.post<AuthResp>(path, c),
    meta: { errorShownInline: true },
    onSuccess: (res) => {
      qc.clear();
      noteSession(true);
      // The body's tokens are ignored: the hub set gw_at and gw_rt cookies.
      qc.setQueryData(qk.me, res.user);
    },
  });
}

export const useSignIn = () => useAuthMutation('/v1/public/auth/login');
export const useSignUp = () => useAuthMutation('/v1/public/auth/register');

export function useSignOut() {
  const qc = useQueryClient();
  const navigate = useNavigate();
  return useMutation({
    mutationFn: () => api.post<unknown>('/v1/public/auth/logout', {}),
    onSettled: () => {
      noteSession(false);
      void navigate('/signin', { replace: true });
      qc.clear();
    },
    meta: { errorShownInline: true },
  });
}

export function useUpdateMe() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (displayName: string) => api.put<User>('/v1/user/me', { display_name: displayName }),
    meta: { errorShownInline: true },
    onSuccess: (u) => qc.setQueryData(qk.me, u),
  });
}

export function useChangePassword() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (b: { current_password: string; new_password: string }) =>
      api.post<AuthResp>('/v1/user/me/password', b),
    meta: { errorShownInline: true },
    // The answer is a fresh session (new cookies); the old refresh token is gone.
    onSuccess: (res) => qc.setQueryData(qk.me, res.user),
  });
}
