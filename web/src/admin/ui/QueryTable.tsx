import { Table } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { HTMLAttributes } from 'react';
import { ErrorState } from '../../ui/ErrorState';
import { retryable } from '../../lib/cursorPages';

/**
 * An admin list's table over its query: the query's error (with retry) while
 * it has no data, else the table (testid on the table), loading until the
 * first data.
 */
export function QueryTable<T extends { id: string }>(props: {
  query: { isError: boolean; error: unknown; data?: { items?: T[] | null }; refetch: () => unknown };
  testid: string;
  columns: ColumnsType<T>;
  /** Loading while there is no data, unless told otherwise. */
  loading?: boolean;
  scroll?: { x: 'max-content' };
  onRow: (r: T) => HTMLAttributes<HTMLElement>;
  pagination: TablePaginationConfig | false;
}) {
  const q = props.query;
  if (q.isError && !q.data) return <ErrorState error={q.error} onRetry={retryable(q.error) ? () => void q.refetch() : undefined} />;
  return (
    <Table<T>
      data-testid={props.testid}
      size="middle"
      rowKey="id"
      loading={props.loading ?? !q.data}
      dataSource={q.data?.items ?? []}
      columns={props.columns}
      scroll={'scroll' in props ? props.scroll : { x: 'max-content' }}
      onRow={props.onRow}
      pagination={props.pagination}
    />
  );
}
