// The one query every long list of both consoles reads its pages through:
// page numbers (from the URL or the table's state) in, cursor or offset
// requests out (src/lib/cursorPages.ts says which and why).
import { keepPreviousData, useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import { useFormat, useI18n } from '../i18n';
import { cursorMemory, fetchPage, MAX_OFFSET, type CursorMemory, type Query } from './cursorPages';
import type { PageParams } from './paging';

export interface CursorPagesOptions<T> {
  /** The list's id, one per table of the console ('user.hosts', 'admin.audit'…): its cursors are kept under it. */
  list: string;
  /** The query's key; it must name the page and every criterion (the lists' existing keys do). */
  queryKey: QueryKey;
  /** The page to show (1-based page number as limit/offset). */
  page: PageParams;
  /** Everything else the list is asked for: search, filters, sort. A change forgets the list's cursors. */
  criteria?: Query;
  /** Asks the hub; the query holds the criteria plus `limit` and either `cursor` or `offset`. */
  fetch: (query: Query, signal?: AbortSignal) => Promise<T>;
  refetchInterval?: UseQueryOptions<T, Error, T, QueryKey>['refetchInterval'];
  refetchIntervalInBackground?: boolean;
  enabled?: boolean;
  /** Another memory than the console's (tests). */
  memory?: CursorMemory;
}

export function useCursorPages<T>(o: CursorPagesOptions<T>) {
  const { t } = useI18n();
  const fmt = useFormat();
  const tooDeepMessage = t('paging.tooDeep', { max: fmt.number(MAX_OFFSET) });
  return useQuery({
    queryKey: o.queryKey,
    queryFn: ({ signal }) =>
      fetchPage({
        memory: o.memory ?? cursorMemory,
        list: o.list,
        criteria: o.criteria ?? {},
        page: o.page,
        fetch: o.fetch,
        signal,
        tooDeepMessage,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: o.refetchInterval,
    refetchIntervalInBackground: o.refetchIntervalInBackground,
    enabled: o.enabled,
  });
}
