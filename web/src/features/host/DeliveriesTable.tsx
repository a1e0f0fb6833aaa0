// The host's webhook delivery history (newest first, re-read every 5 s) with
// a manual retry for dead deliveries. The route returns the latest `limit`
// rows without paging; the table pages them on the client.
import { RedoOutlined } from '@ant-design/icons';
import { App, Button, Card, Empty, Select, Table, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState, type HTMLAttributes } from 'react';
import type { DeliveryRow } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { ErrorState } from '../../ui/ErrorState';
import { isSkeletonRow, rowKeyOf, withSkeleton } from '../../ui/tableSkeleton';
import { useDeliveries, useRetryDelivery } from './hooks';

const LIMITS = [50, 100, 200] as const;
const STATUS_COLOR: Record<string, string> = {
  pending: 'blue',
  retrying: 'orange',
  success: 'green',
  dead_letter: 'red',
  skipped_no_url: 'default',
};
const KNOWN = Object.keys(STATUS_COLOR);

export function DeliveriesTable({ hostId }: { hostId: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const { message } = App.useApp();
  const [limit, setLimit] = useState<number>(LIMITS[0]);
  const q = useDeliveries(hostId, limit);
  const retry = useRetryDelivery(hostId);

  const columns: ColumnsType<DeliveryRow> = [
    {
      title: t('host.deliveries.status'),
      dataIndex: 'status',
      key: 'status',
      render: (s: string) => (
        <Tag color={STATUS_COLOR[s] ?? 'default'}>{KNOWN.includes(s) ? t(`host.deliveries.status.${s}`) : s}</Tag>
      ),
    },
    {
      title: t('host.deliveries.event'),
      dataIndex: 'event_type',
      key: 'event_type',
      render: (v: string, r) => (
        <>
          <Typography.Text code>{v}</Typography.Text>{' '}
          <Typography.Text type="secondary">{t('host.deliveries.formatTag', { format: r.format })}</Typography.Text>
        </>
      ),
    },
    { title: t('host.deliveries.attempts'), dataIndex: 'attempts', key: 'attempts', align: 'right' },
    {
      title: t('host.deliveries.http'),
      dataIndex: 'http_status',
      key: 'http_status',
      align: 'right',
      render: (v?: number) => (v ? v : '—'),
    },
    { title: t('host.deliveries.created'), dataIndex: 'created_at', key: 'created_at', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('host.deliveries.delivered'),
      dataIndex: 'delivered_at',
      key: 'delivered_at',
      render: (v?: string) => fmt.dateTime(v),
    },
    {
      title: t('host.deliveries.next'),
      dataIndex: 'next_attempt_at',
      key: 'next_attempt_at',
      render: (v?: string) => fmt.dateTime(v),
    },
    {
      title: t('host.deliveries.error'),
      dataIndex: 'last_error',
      key: 'last_error',
      width: 260,
      render: (v?: string) =>
        v ? (
          <Typography.Text type="danger" ellipsis={{ tooltip: v }} style={{ maxWidth: 260 }}>
            {v}
          </Typography.Text>
        ) : (
          '—'
        ),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_, r) =>
        r.status === 'dead_letter' ? (
          <Tooltip title={t('host.deliveries.retryHint')}>
            <Button
              size="small"
              icon={<RedoOutlined />}
              data-testid="delivery-retry"
              loading={retry.isPending && retry.variables === r.id}
              onClick={() =>
                retry.mutate(r.id, { onSuccess: () => void message.success(t('host.deliveries.retried')) })
              }
            >
              {t('host.deliveries.retry')}
            </Button>
          </Tooltip>
        ) : null,
    },
  ];

  const items = q.data ? (q.data.items ?? []) : undefined;
  const table = withSkeleton(columns, items, q.isPending, 3);

  return (
    <Card
      title={t('host.deliveries.title')}
      extra={
        <Select<number>
          size="small"
          aria-label={t('host.deliveries.limit')}
          value={limit}
          onChange={setLimit}
          style={{ width: 130 }}
          options={LIMITS.map((l) => ({ value: l, label: t('host.deliveries.latest', { n: l }) }))}
        />
      }
    >
      {q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <div data-testid="deliveries-table">
          <Table<DeliveryRow>
            size="small"
            rowKey={rowKeyOf}
            columns={table.columns}
            dataSource={table.dataSource}
            scroll={{ x: 'max-content' }}
            pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
            onRow={(r) =>
              (isSkeletonRow(r)
                ? {}
                : { 'data-testid': 'delivery-row', 'data-status': r.status, 'data-delivery-id': r.id }) as HTMLAttributes<HTMLElement>
            }
            locale={{
              emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('host.deliveries.empty')} />,
            }}
          />
        </div>
      )}
    </Card>
  );
}
