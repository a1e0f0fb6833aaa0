// STAND-IN (FE-FLEET) for FE-SHELL's admin API client, with the contract's
// signature; FE-SHELL's version replaces it at merge.
import { request } from '../api/client';

type Query = Record<string, string | number | boolean | undefined | null>;

export const adminApi = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => request<T>('GET', path, { query, signal }),
  post: <T>(path: string, body: unknown = {}) => request<T>('POST', path, { body }),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, { body }),
  delete: <T>(path: string) => request<T>('DELETE', path),
};

export { seg, errorMessage, ApiError } from '../api/client';
