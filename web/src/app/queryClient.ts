import { MutationCache, QueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../api/client';
import { notifyError } from './notify';

declare module '@tanstack/react-query' {
  interface Register {
    defaultError: Error;
    /** `errorShownInline: true`: the caller shows the error itself (a form's form-error), so no toast. */
    mutationMeta: { errorShownInline?: boolean };
  }
}

/** Retries network trouble and 5xx twice; a 4xx is an answer, not a hiccup. */
export function shouldRetry(failureCount: number, err: unknown): boolean {
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        staleTime: 2_000,
        refetchOnWindowFocus: true,
      },
      mutations: { retry: false },
    },
    mutationCache: new MutationCache({
      onError: (err, _vars, _ctx, mutation) => {
        if (!mutation.meta?.errorShownInline) notifyError(errorMessage(err));
      },
    }),
  });
}

export const queryClient = createQueryClient();
