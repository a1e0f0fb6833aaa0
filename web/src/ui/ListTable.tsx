// A server-paged list's pieces both consoles share: the toolbar row, its
// search box, and the table with its first-load skeleton, error states,
// paging (the shared pager, src/ui/pager.ts) and an empty state that offers
// to clear the filters.
import { Alert, Button, Empty, Flex, Input, Table, Typography } from 'antd';
import type { ColumnsType, TablePaginationConfig, TableProps } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import type { HTMLAttributes, ReactNode } from 'react';
import { errorMessage } from '../api/client';
import { retryable } from '../lib/cursorPages';
import type { PageParams } from '../lib/paging';
import { ErrorState } from './ErrorState';
import { usePager } from './pager';
import { isSkeletonRow, rowKeyOf, withSkeleton } from './tableSkeleton';

/** The row of a list's search box and filters. */
export function ListToolbar({ children }: { children: ReactNode }) {
  return (
    <Flex gap={8} wrap="wrap" style={{ marginBottom: 16 }}>
      {children}
    </Flex>
  );
}

/** A list's search box (testid on the input); `label` is also its placeholder. */
export function ListSearch(props: {
  testid: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  onSearch: (v: string) => void;
  width: number;
}) {
  return (
    <Input.Search
      data-testid={props.testid}
      aria-label={props.label}
      placeholder={props.label}
      allowClear
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      onSearch={props.onSearch}
      style={{ width: props.width, maxWidth: '100%' }}
    />
  );
}

interface ListTableProps<T extends { id: string }> {
  query: {
    isError: boolean;
    isPending: boolean;
    isFetching: boolean;
    error: unknown;
    data?: { items?: T[] | null; total?: number };
    refetch: () => unknown;
  };
  /** The testid of the table's wrapper. */
  testid: string;
  /** Also put `data-total` and `data-fetching` on the wrapper (the admin console's tests wait on them). */
  stateAttrs?: boolean;
  columns: ColumnsType<T>;
  size?: 'middle';
  onChange: (pg: TablePaginationConfig, filters: unknown, sorter: SorterResult<T> | SorterResult<T>[]) => void;
  /** The attributes of a (real) row. */
  rowAttrs: (r: T) => Record<string, string>;
  page: PageParams;
  /** The message key of the total under the table (`{total}`). */
  totalKey: string;
  /** Whether a search or filter narrows the list. */
  filtered: boolean;
  emptyText: string;
  emptyFilteredText: string;
  clearText: string;
  onClear: () => void;
  /** The empty state's button when nothing is filtered. */
  emptyAction?: ReactNode;
  /** Checkboxes on the rows (the hosts list's selection). */
  rowSelection?: TableProps<T>['rowSelection'];
  /** Rows that open (a job's results show each host's output). */
  expandable?: TableProps<T>['expandable'];
}

export function ListTable<T extends { id: string }>(p: ListTableProps<T>) {
  const pager = usePager();
  const q = p.query;
  if (q.isError && !q.data) return <ErrorState error={q.error} onRetry={retryable(q.error) ? () => void q.refetch() : undefined} />;
  const items = q.data?.items ?? undefined;
  const table = withSkeleton(p.columns, q.data ? (items ?? []) : undefined, q.isPending);
  const total = q.data?.total ?? items?.length ?? 0;
  return (
    <>
      {q.isError && <Alert type="warning" showIcon style={{ marginBottom: 12 }} message={errorMessage(q.error)} />}
      <div
        data-testid={p.testid}
        {...(p.stateAttrs ? { 'data-total': total, 'data-fetching': String(q.isFetching) } : {})}
      >
        <Table
          rowKey={rowKeyOf}
          size={p.size}
          columns={table.columns}
          dataSource={table.dataSource}
          scroll={{ x: 'max-content' }}
          onChange={p.onChange}
          rowSelection={p.rowSelection && !(q.isPending && !q.data) ? p.rowSelection : undefined}
          expandable={p.expandable && !(q.isPending && !q.data) ? p.expandable : undefined}
          onRow={(r) => (isSkeletonRow(r) ? {} : p.rowAttrs(r)) as HTMLAttributes<HTMLElement>}
          pagination={pager({ page: p.page, total, totalKey: p.totalKey })}
          locale={{
            emptyText: (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={<Typography.Text type="secondary">{p.filtered ? p.emptyFilteredText : p.emptyText}</Typography.Text>}
              >
                {p.filtered ? <Button onClick={p.onClear}>{p.clearText}</Button> : (p.emptyAction ?? null)}
              </Empty>
            ),
          }}
        />
      </div>
    </>
  );
}
