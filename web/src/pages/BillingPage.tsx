import { Card, Col, Row, Skeleton, Statistic, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useSearchParams } from 'react-router';
import type { BillingEvent, Recharge } from '../api/types';
import { useBalance, useBillingEvents, useRecharges } from '../hooks/billing';
import { useFormat, useI18n } from '../i18n';
import { pageFromSearch, pageToParams, pageToSearch, type PageParams } from '../lib/paging';
import { usePager } from '../ui/pager';
import { ErrorState } from '../ui/ErrorState';
import { PageHeader } from '../ui/PageHeader';
import { rowKeyOf, withSkeleton } from '../ui/tableSkeleton';
import { RechargeCard, RechargeStatusTag } from './RechargeCard';

const KIND_COLOR: Record<string, string> = { charge: 'default', recharge: 'green', refund: 'blue', adjust: 'purple' };

function BalanceCard() {
  const { t } = useI18n();
  const fmt = useFormat();
  const balance = useBalance();
  return (
    <Card title={t('billing.balance')} style={{ height: '100%' }}>
      {balance.data ? (
        <div data-testid="balance" data-tokens={String(balance.data.tokens)}>
          <Statistic
            value={fmt.tokens(balance.data.tokens)}
            suffix={t('billing.tokens')}
            valueStyle={{ color: balance.data.tokens <= 0 ? '#cf1322' : undefined }}
          />
        </div>
      ) : balance.isError ? (
        <ErrorState error={balance.error} onRetry={() => void balance.refetch()} />
      ) : (
        <Skeleton.Input active style={{ height: 38, width: 160 }} />
      )}
    </Card>
  );
}

function usePaged(prefix: string): [PageParams, (p: PageParams) => void] {
  const [sp, setSp] = useSearchParams();
  const p = pageFromSearch(sp, prefix);
  return [p, (next) => setSp((cur) => pageToSearch(cur, next, prefix), { replace: true })];
}

/** The shared pager's options for a billing table: a new size starts at page 1. */
function pagerOf(p: PageParams, total: number | undefined, set: (p: PageParams) => void) {
  return { page: p, total, onChange: (page: number, size: number) => set(pageToParams(size === p.limit ? page : 1, size)) };
}

function EventsTable() {
  const { t } = useI18n();
  const fmt = useFormat();
  const [p, setP] = usePaged('ev_');
  const pager = usePager();
  const events = useBillingEvents(p);
  const columns: ColumnsType<BillingEvent> = [
    { title: t('billing.col.time'), dataIndex: 'created_at', key: 'time', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('billing.col.kind'),
      dataIndex: 'kind',
      key: 'kind',
      render: (k: string) => <Tag color={KIND_COLOR[k]}>{KIND_COLOR[k] ? t(`billing.kind.${k}`) : k}</Tag>,
    },
    {
      title: t('billing.col.tokens'),
      dataIndex: 'tokens',
      key: 'tokens',
      align: 'right',
      render: (n: number) => (
        <Typography.Text type={n < 0 ? undefined : 'success'}>
          {n > 0 ? '+' : ''}
          {fmt.tokens(n)}
        </Typography.Text>
      ),
    },
    { title: t('billing.col.balanceAfter'), dataIndex: 'balance_after', key: 'after', align: 'right', render: (n: number) => fmt.tokens(n) },
    {
      title: t('billing.col.detail'),
      key: 'detail',
      render: (_, e) => [e.rule_code, e.reason].filter(Boolean).join(' · ') || '—',
    },
  ];
  const table = withSkeleton(columns, events.data ? (events.data.items ?? []) : undefined, events.isPending);
  if (events.isError && !events.data) return <ErrorState error={events.error} onRetry={() => void events.refetch()} />;
  return (
    <div data-testid="billing-events-table">
      <Table
        rowKey={rowKeyOf}
        size="middle"
        columns={table.columns}
        dataSource={table.dataSource}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('billing.eventsEmpty') }}
        pagination={pager(pagerOf(p, events.data?.total, setP))}
      />
    </div>
  );
}

function RechargesTable() {
  const { t } = useI18n();
  const fmt = useFormat();
  const [p, setP] = usePaged('rc_');
  const pager = usePager();
  const recharges = useRecharges(p);
  const columns: ColumnsType<Recharge> = [
    { title: t('billing.col.time'), dataIndex: 'created_at', key: 'time', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('billing.col.order'),
      dataIndex: 'order_no',
      key: 'order',
      render: (v: string) => <Typography.Text copyable={{ text: v }}>{v}</Typography.Text>,
    },
    { title: t('billing.col.amount'), dataIndex: 'amount_cny', key: 'amount', align: 'right', render: (n: number) => fmt.cny(n) },
    { title: t('billing.col.tokens'), dataIndex: 'tokens', key: 'tokens', align: 'right', render: (n: number) => fmt.tokens(n) },
    { title: t('billing.col.status'), dataIndex: 'status', key: 'status', render: (s: Recharge['status']) => <RechargeStatusTag status={s} /> },
    { title: t('billing.col.paidAt'), dataIndex: 'paid_at', key: 'paid', render: (v?: string) => (v ? fmt.dateTime(v) : '—') },
  ];
  const table = withSkeleton(columns, recharges.data ? (recharges.data.items ?? []) : undefined, recharges.isPending);
  if (recharges.isError && !recharges.data)
    return <ErrorState error={recharges.error} onRetry={() => void recharges.refetch()} />;
  return (
    <div data-testid="recharges-table">
      <Table
        rowKey={rowKeyOf}
        size="middle"
        columns={table.columns}
        dataSource={table.dataSource}
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: t('billing.rechargesEmpty') }}
        pagination={pager(pagerOf(p, recharges.data?.total, setP))}
      />
    </div>
  );
}

export default function BillingPage() {
  const { t } = useI18n();
  return (
    <>
      <PageHeader title={t('billing.title')} />
      <Row gutter={[16, 16]} style={{ marginBottom: 16 }}>
        <Col xs={24} md={10} lg={8}>
          <BalanceCard />
        </Col>
        <Col xs={24} md={14} lg={16}>
          <RechargeCard />
        </Col>
      </Row>
      <Card title={t('billing.rechargesTitle')} style={{ marginBottom: 16 }} styles={{ body: { padding: 0 } }}>
        <RechargesTable />
      </Card>
      <Card title={t('billing.eventsTitle')} styles={{ body: { padding: 0 } }}>
        <EventsTable />
      </Card>
    </>
  );
}
