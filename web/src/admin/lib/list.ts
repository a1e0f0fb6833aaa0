// A paged list's state in the URL: page/size plus the page's filters, so a
// reload or a shared link shows the same page. The hub pages and filters
// (by cursor or offset: src/lib/useCursorPages.ts); the console never loads
// a whole list.
import type { TablePaginationConfig } from 'antd/es/table';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { pageFromSearch, type PageParams } from '../../lib/paging';
import { usePager } from '../../ui/pager';

export interface UrlList<K extends string> {
  page: PageParams;
  filters: Record<K, string | undefined>;
  /** Sets (or clears, with '' / undefined) one filter and goes back to page 1. */
  setFilter: (k: K, v: string | undefined) => void;
  /** Clears every filter of the page and goes back to page 1. */
  clearFilters: () => void;
  /** antd Table pagination for a list of `total` items (the shared pager, src/ui/pager.ts). */
  pagination: (total: number | undefined) => TablePaginationConfig;
}

export function useUrlList<K extends string>(keys: readonly K[]): UrlList<K> {
  const [sp, setSp] = useSearchParams();
  const page = useMemo(() => pageFromSearch(sp), [sp]);
  const filters = useMemo(
    () => Object.fromEntries(keys.map((k) => [k, sp.get(k) || undefined])) as Record<K, string | undefined>,
    // keys is a constant list per page
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [sp],
  );
  const setFilter = useCallback(
    (k: K, v: string | undefined) => {
      setSp(
        (prev) => {
          const n = new URLSearchParams(prev);
          if (v) n.set(k, v);
          else n.delete(k);
          n.delete('page');
          return n;
        },
        { replace: true },
      );
    },
    [setSp],
  );
  const clearFilters = useCallback(() => {
    setSp(
      (prev) => {
        const n = new URLSearchParams(prev);
        for (const k of keys) n.delete(k);
        n.delete('page');
        return n;
      },
      { replace: true },
    );
    // keys is a constant list per page
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [setSp]);
  const pager = usePager();
  const pagination = useCallback(
    (total: number | undefined) =>
      pager({
        page,
        total,
        onChange: (p: number, size: number) =>
        setSp(
          (prev) => {
            const n = new URLSearchParams(prev);
            if (size !== page.limit) {
              n.set('size', String(size));
              n.delete('page');
            } else if (p > 1) n.set('page', String(p));
            else n.delete('page');
            return n;
          },
          { replace: false },
        ),
      }),
    [page, setSp, pager],
  );
  return { page, filters, setFilter, clearFilters, pagination };
}
