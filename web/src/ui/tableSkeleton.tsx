import { Skeleton } from 'antd';
import type { ColumnsType } from 'antd/es/table';

const SKELETON = '__skeleton';

/**
 * While a table's first page loads, shows `rows` placeholder rows in the
 * real columns (so the page does not jump when the data arrives). The
 * placeholder rows have a `key` and no data; check them with isSkeletonRow.
 */
export function withSkeleton<T extends object>(
  columns: ColumnsType<T>,
  data: T[] | undefined,
  loading: boolean,
  rows = 5,
): { columns: ColumnsType<T>; dataSource: T[] } {
  if (!loading || data) return { columns, dataSource: data ?? [] };
  const fake = Array.from({ length: rows }, (_, i) => ({ [SKELETON]: true, key: `skeleton-${i}` }) as unknown as T);
  const cols = columns.map((c) => ({
    ...c,
    sorter: false,
    render: () => <Skeleton.Input active size="small" block style={{ height: 16, minWidth: 40 }} />,
  }));
  return { columns: cols, dataSource: fake };
}

export function isSkeletonRow(r: object): boolean {
  return SKELETON in r;
}

/** rowKey for tables using withSkeleton: the row's id, or the placeholder's key. */
export function rowKeyOf(r: object): string {
  return 'id' in r ? String(r.id) : String((r as { key?: string }).key);
}
