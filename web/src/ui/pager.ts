// The pager under every server-paged table of both consoles, so they all
// page the same way: previous/next and page numbers, a page-size choice, a
// "go to page" box once a list has more than a few pages, and the rows shown
// with the total ("21–40 · 20,000 hosts"). Which request a page turns into
// (cursor or offset) is src/lib/useCursorPages.ts's business.
import type { TablePaginationConfig } from 'antd/es/table';
import { useCallback } from 'react';
import { useFormat, useI18n } from '../i18n';
import { pageNumber } from '../lib/cursorPages';
import { PAGE_SIZES, type PageParams } from '../lib/paging';

/** From this many pages on, the pager offers a "go to page" box. */
export const JUMPER_FROM_PAGES = 10;

export interface PagerOptions {
  page: PageParams;
  total: number | undefined;
  /** Called with the new page number and size (a table's own onChange may handle it instead). */
  onChange?: (page: number, size: number) => void;
  /** The message of the total (`{total}`); default `common.total`. */
  totalKey?: string;
  /** A card's small table: fixed page size, no "go to page", hidden while everything fits on one page. */
  compact?: boolean;
}

/** Builds the antd pagination of a server-paged table, in the console's language. */
export function usePager(): (o: PagerOptions) => TablePaginationConfig {
  const { t } = useI18n();
  const fmt = useFormat();
  return useCallback(
    (o: PagerOptions) => {
      const total = o.total ?? 0;
      const pages = Math.ceil(total / Math.max(1, o.page.limit));
      const totalText = (n: number) => t(o.totalKey ?? 'common.total', { total: fmt.number(n) });
      return {
        current: pageNumber(o.page),
        pageSize: o.page.limit,
        total,
        showSizeChanger: !o.compact,
        pageSizeOptions: PAGE_SIZES.map(String),
        showQuickJumper: !o.compact && pages > JUMPER_FROM_PAGES,
        showLessItems: true,
        showTotal: (n: number, [from, to]: [number, number]) =>
          n > 0 ? t('paging.range', { from: fmt.number(from), to: fmt.number(to), total: totalText(n) }) : totalText(n),
        hideOnSinglePage: Boolean(o.compact),
        ...(o.compact ? { size: 'small' as const } : {}),
        ...(o.onChange ? { onChange: o.onChange } : {}),
      };
    },
    [t, fmt],
  );
}
