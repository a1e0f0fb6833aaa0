// /admin/users/:id: one customer — profile, balance, ledger (billing events),
// recharges, hosts and API keys (names, prefix and last use; never a
// secret); suspend/resume for operator and owner, balance adjustment with a
// required reason for finance and owner (the others do not see the controls).
import { ArrowLeftOutlined, DollarOutlined, PauseCircleOutlined, PlayCircleOutlined } from '@ant-design/icons';
import { App, Badge, Button, Card, Descriptions, Empty, Flex, Form, Input, InputNumber, Modal, Skeleton, Table, Tag, Typography } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import { useRef, useState, type HTMLAttributes } from 'react';
import { Link, useParams } from 'react-router';
import { ApiError, seg } from '../../api';
import { useAdmin } from '../../session';
import type { AdminApiKey, AdminUserDetail, BillingEvent, Recharge } from '../../types';
import { useFormat, useI18n } from '../../../i18n';
import { DEFAULT_PAGE_SIZE, pageToParams, type PageParams } from '../../../lib/paging';
import { usePager } from '../../../ui/pager';
import { ErrorState } from '../../../ui/ErrorState';
import { FormError } from '../../../ui/FormError';
import { PageHeader } from '../../../ui/PageHeader';
import type { AdminHostItem } from '../hosts/types';
import { STATUS_COLOR, statusLabel } from '../hosts/status';
import {
  useAdjustBalance,
  newIdempotencyKey,
  useAdminUser,
  useLedgerCheck,
  useResumeUser,
  useSuspendUser,
  useUserApiKeys,
  useUserHosts,
  useUserLedger,
  useUserRecharges,
} from './hooks';
import { UserStatusTag } from './UserStatusTag';

const SUB_PAGE = 10;

export default function UserPage() {
  const { id = '' } = useParams();
  return <UserView key={id} id={id} />;
}

function BackLink() {
  const { t } = useI18n();
  return (
    <Link to="/admin/users" style={{ display: 'inline-block', marginBottom: 8 }}>
      <ArrowLeftOutlined /> {t('adminUsers.back')}
    </Link>
  );
}

function UserView({ id }: { id: string }) {
  const { t } = useI18n();
  const q = useAdminUser(id);
  if (q.isPending) {
    return (
      <Card>
        <Skeleton active paragraph={{ rows: 6 }} />
      </Card>
    );
  }
  if (q.isError && !q.data) {
    const gone = q.error instanceof ApiError && q.error.status === 404;
    return (
      <>
        <BackLink />
        {gone ? <Empty description={t('adminUsers.notFound')} /> : <ErrorState error={q.error} onRetry={() => void q.refetch()} />}
      </>
    );
  }
  return <UserLoaded id={id} u={q.data} />;
}

function UserLoaded({ id, u }: { id: string; u: AdminUserDetail }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const { can } = useAdmin();
  const { modal } = App.useApp();
  const suspend = useSuspendUser(id);
  const resume = useResumeUser(id);
  const [adjusting, setAdjusting] = useState(false);
  const suspended = u.status === 'suspended';

  const actions = [
    can('users.write') && !suspended ? (
      <Button
        key="suspend"
        danger
        icon={<PauseCircleOutlined />}
        data-testid="user-suspend"
        onClick={() =>
          modal.confirm({
            title: t('adminUsers.suspendTitle', { email: u.email }),
            content: t('adminUsers.suspendBody'),
            okText: t('adminUsers.suspend'),
            cancelText: t('common.cancel'),
            okButtonProps: { danger: true, ...({ 'data-testid': 'confirm-ok' } as object) },
            autoFocusButton: 'cancel',
            onOk: () => suspend.mutateAsync(undefined),
          })
        }
      >
        {t('adminUsers.suspend')}
      </Button>
    ) : null,
    can('users.write') && suspended ? (
      <Button
        key="resume"
        icon={<PlayCircleOutlined />}
        data-testid="user-resume"
        onClick={() =>
          modal.confirm({
            title: t('adminUsers.resumeTitle', { email: u.email }),
            content: t('adminUsers.resumeBody'),
            okText: t('adminUsers.resume'),
            cancelText: t('common.cancel'),
            okButtonProps: { ...({ 'data-testid': 'confirm-ok' } as object) },
            autoFocusButton: 'cancel',
            onOk: () => resume.mutateAsync(undefined),
          })
        }
      >
        {t('adminUsers.resume')}
      </Button>
    ) : null,
    can('balance.adjust') ? (
      <Button key="adjust" icon={<DollarOutlined />} data-testid="user-adjust-balance" onClick={() => setAdjusting(true)}>
        {t('adminUsers.adjust')}
      </Button>
    ) : null,
  ].filter(Boolean);

  return (
    <>
      <BackLink />
      <PageHeader title={u.email} extra={actions.length ? actions : undefined} />
      <Flex vertical gap={16}>
        <Card title={t('adminUsers.profile')}>
          <Descriptions column={{ xs: 1, sm: 1, md: 2, lg: 3 }} size="small">
            <Descriptions.Item label={t('adminUsers.col.status')}>
              <span data-testid="user-status" data-status={u.status}>
                <UserStatusTag status={u.status} />
              </span>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminUsers.balance')}>
              <Flex gap={8} align="center" wrap>
                <Typography.Text strong data-testid="user-balance" data-tokens={u.balance ?? ''}>
                  {u.balance === undefined ? '—' : t('adminUsers.tokens', { tokens: fmt.tokens(u.balance) })}
                </Typography.Text>
                <LedgerCheckButton id={id} />
              </Flex>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminUsers.col.displayName')}>{u.display_name || '—'}</Descriptions.Item>
            <Descriptions.Item label={t('adminUsers.userId')}>
              <Typography.Text copyable code style={{ wordBreak: 'break-all' }}>
                {u.id}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminUsers.col.created')}>{fmt.dateTime(u.created_at)}</Descriptions.Item>
            <Descriptions.Item label={t('adminUsers.counts')}>
              {t('adminUsers.countsValue', {
                hosts: u.host_count === undefined ? '—' : fmt.number(u.host_count),
                keys: u.api_key_count === undefined ? '—' : fmt.number(u.api_key_count),
              })}
            </Descriptions.Item>
          </Descriptions>
        </Card>
        <LedgerCard id={id} />
        <RechargesCard id={id} />
        <HostsCard id={id} />
        <ApiKeysCard id={id} />
      </Flex>
      {can('balance.adjust') ? <AdjustDialog id={id} open={adjusting} onClose={() => setAdjusting(false)} /> : null}
    </>
  );
}

/** Local paging for a card's table (the page's URL keeps only the user). */
function usePaging(): [PageParams, (page: number, size: number) => void] {
  const [p, setP] = useState<PageParams>({ limit: SUB_PAGE, offset: 0 });
  return [p, (page, size) => setP(pageToParams(page, size || DEFAULT_PAGE_SIZE))];
}


/** A card holding one of the user's sub-tables: its error state, or the table inside a testid'd wrapper. */
function TableSection<T extends { id: string }>(props: {
  title: string;
  testid: string;
  query: { isError: boolean; isPending: boolean; error: unknown; data?: { items?: T[] | null }; refetch: () => unknown };
  columns: ColumnsType<T>;
  onRow?: (r: T) => HTMLAttributes<HTMLElement>;
  pagination: TablePaginationConfig | false;
  empty: string;
}) {
  const { query: q } = props;
  return (
    <Card title={props.title}>
      {q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <div data-testid={props.testid}>
          <Table<T>
            rowKey="id"
            size="small"
            loading={q.isPending}
            columns={props.columns}
            dataSource={q.data?.items ?? []}
            scroll={{ x: 'max-content' }}
            onRow={props.onRow}
            pagination={props.pagination}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={props.empty} /> }}
          />
        </div>
      )}
    </Card>
  );
}

const KIND_COLOR: Record<string, string> = { charge: 'default', recharge: 'green', refund: 'orange', adjust: 'blue' };

// LedgerCheckButton asks the hub whether the balance equals the sum of the
// user's billing events, and says so beside the balance.
function LedgerCheckButton({ id }: { id: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const q = useLedgerCheck(id);
  let result = null;
  if (q.isError) {
    result = <Tag color="default">{t('adminUsers.ledgerCheck.failed')}</Tag>;
  } else if (q.data) {
    result = q.data.consistent ? (
      <Tag color="success" data-testid="user-ledger-check-result" data-consistent="true">
        {t('adminUsers.ledgerCheck.ok')}
      </Tag>
    ) : (
      <Tag color="error" data-testid="user-ledger-check-result" data-consistent="false">
        {t('adminUsers.ledgerCheck.mismatch', { balance: fmt.tokens(q.data.balance), sum: fmt.tokens(q.data.events_sum) })}
      </Tag>
    );
  }
  return (
    <>
      <Button size="small" data-testid="user-ledger-check" loading={q.isFetching} onClick={() => void q.refetch()}>
        {t('adminUsers.ledgerCheck.button')}
      </Button>
      {result}
    </>
  );
}

function LedgerCard({ id }: { id: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const [p, setP] = usePaging();
  const pager = usePager();
  const q = useUserLedger(id, p);
  const columns: ColumnsType<BillingEvent> = [
    { title: t('adminUsers.ledger.at'), dataIndex: 'created_at', key: 'at', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('adminUsers.ledger.kind'),
      dataIndex: 'kind',
      key: 'kind',
      render: (k: string) => <Tag color={KIND_COLOR[k] ?? 'default'}>{t(`adminUsers.kind.${k}`)}</Tag>,
    },
    { title: t('adminUsers.ledger.tokens'), dataIndex: 'tokens', key: 'tokens', align: 'right', render: (v: number) => fmt.tokens(v) },
    {
      title: t('adminUsers.ledger.after'),
      dataIndex: 'balance_after',
      key: 'after',
      align: 'right',
      render: (v: number) => fmt.tokens(v),
    },
    {
      title: t('adminUsers.ledger.what'),
      key: 'what',
      render: (_, e) => e.rule_code || e.reason || '—',
    },
  ];
  return (
    <TableSection<BillingEvent>
      title={t('adminUsers.ledger.title')}
      testid="user-ledger-table"
      query={q}
      columns={columns}
      pagination={pager({ page: p, total: q.data?.total, onChange: setP, compact: true })}
      empty={t('adminUsers.ledger.empty')}
    />
  );
}

function RechargesCard({ id }: { id: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const [p, setP] = usePaging();
  const pager = usePager();
  const q = useUserRecharges(id, p);
  const columns: ColumnsType<Recharge> = [
    { title: t('adminUsers.recharge.at'), dataIndex: 'created_at', key: 'at', render: (v: string) => fmt.dateTime(v) },
    { title: t('adminUsers.recharge.order'), dataIndex: 'order_no', key: 'order', render: (v?: string) => v || '—' },
    { title: t('adminUsers.recharge.amount'), dataIndex: 'amount_cny', key: 'cny', align: 'right', render: (v: number) => fmt.cny(v) },
    { title: t('adminUsers.ledger.tokens'), dataIndex: 'tokens', key: 'tokens', align: 'right', render: (v: number) => fmt.tokens(v) },
    {
      title: t('adminUsers.col.status'),
      dataIndex: 'status',
      key: 'status',
      render: (s: string) => (
        <Tag color={s === 'paid' ? 'green' : s === 'refunded' ? 'orange' : 'default'}>{t(`adminUsers.recharge.status.${s}`)}</Tag>
      ),
    },
  ];
  return (
    <TableSection<Recharge>
      title={t('adminUsers.recharge.title')}
      testid="user-recharges-table"
      query={q}
      columns={columns}
      pagination={pager({ page: p, total: q.data?.total, onChange: setP, compact: true })}
      empty={t('adminUsers.recharge.empty')}
    />
  );
}

function HostsCard({ id }: { id: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const [p, setP] = usePaging();
  const pager = usePager();
  const q = useUserHosts(id, p);
  const columns: ColumnsType<AdminHostItem> = [
    {
      title: t('adminUsers.hosts.name'),
      dataIndex: 'name',
      key: 'name',
      render: (_, h) => <Link to={`/admin/hosts/${seg(h.id)}`}>{h.name}</Link>,
    },
    {
      title: t('adminUsers.hosts.connection'),
      key: 'online',
      render: (_, h) => <Badge status={h.online ? 'success' : 'default'} text={h.online ? t('adminHosts.connected') : t('adminHosts.disconnected')} />,
    },
    {
      title: t('adminUsers.col.status'),
      dataIndex: 'status',
      key: 'status',
      render: (s: string) => <Tag color={STATUS_COLOR[s] ?? 'default'}>{statusLabel(t, s)}</Tag>,
    },
    { title: t('adminHosts.col.version'), dataIndex: 'installed_version', key: 'v', render: (v?: string) => v || '—' },
    {
      title: t('adminHosts.col.lastSeen'),
      dataIndex: 'last_seen_at',
      key: 'seen',
      render: (v?: string) => (v ? fmt.dateTime(v) : t('adminHosts.never')),
    },
  ];
  return (
    <TableSection<AdminHostItem>
      title={t('adminUsers.hosts.title')}
      testid="user-hosts-table"
      query={q}
      columns={columns}
      onRow={(r) => ({ 'data-testid': 'user-host-row', 'data-id': r.id }) as HTMLAttributes<HTMLElement>}
      pagination={pager({ page: p, total: q.data?.total, onChange: setP, compact: true })}
      empty={t('adminUsers.hosts.empty')}
    />
  );
}

function ApiKeysCard({ id }: { id: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const q = useUserApiKeys(id);
  const columns: ColumnsType<AdminApiKey> = [
    { title: t('adminUsers.keys.name'), dataIndex: 'name', key: 'name', render: (v: string) => v || '—' },
    { title: t('adminUsers.keys.prefix'), dataIndex: 'prefix', key: 'prefix', render: (v: string) => <Typography.Text code>{v}…</Typography.Text> },
    { title: t('adminUsers.col.created'), dataIndex: 'created_at', key: 'created', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('adminUsers.keys.lastUsed'),
      dataIndex: 'last_used_at',
      key: 'used',
      render: (v?: string | null) => (v ? fmt.dateTime(v) : t('adminHosts.never')),
    },
    {
      title: t('adminUsers.col.status'),
      key: 'revoked',
      render: (_, k) => (k.revoked_at ? <Tag>{t('adminUsers.keys.revoked')}</Tag> : <Tag color="green">{t('adminUsers.keys.active')}</Tag>),
    },
  ];
  return (
    <TableSection<AdminApiKey>
      title={t('adminUsers.keys.title')}
      testid="user-apikeys-table"
      query={q}
      columns={columns}
      pagination={false}
      empty={t('adminUsers.keys.empty')}
    />
  );
}

interface AdjustForm {
  tokens: number | null;
  reason: string;
}

function AdjustDialog({ id, open, onClose }: { id: string; open: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const { message } = App.useApp();
  const adjust = useAdjustBalance(id);
  const [form] = Form.useForm<AdjustForm>();
  // One key per adjustment: a resend of the same values (after an error)
  // keeps it, so the hub applies it once; other values get a new one.
  const sent = useRef<{ body: string; key: string } | null>(null);
  const close = () => {
    adjust.reset();
    form.resetFields();
    sent.current = null;
    onClose();
  };
  const submit = (v: AdjustForm) => {
    if (v.tokens === null || v.tokens === 0) return;
    const body = { tokens: v.tokens, reason: v.reason.trim() };
    const text = JSON.stringify(body);
    if (sent.current?.body !== text) sent.current = { body: text, key: newIdempotencyKey() };
    adjust.mutate(
      { ...body, key: sent.current.key },
      {
        onSuccess: (r) => {
          void message.success(t('adminUsers.adjustDone', { tokens: fmt.tokens(r.balance_after) }));
          close();
        },
      },
    );
  };
  return (
    <Modal
      open={open}
      title={t('adminUsers.adjustTitle')}
      onCancel={close}
      okText={t('adminUsers.adjustOk')}
      cancelText={t('common.cancel')}
      okButtonProps={{ loading: adjust.isPending, ...({ 'data-testid': 'user-adjust-submit' } as object) }}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      <Form<AdjustForm> form={form} layout="vertical" onFinish={submit} initialValues={{ tokens: null, reason: '' }}>
        <Typography.Paragraph type="secondary">{t('adminUsers.adjustHint')}</Typography.Paragraph>
        <Form.Item
          name="tokens"
          label={t('adminUsers.adjustTokens')}
          rules={[
            { required: true, message: t('adminUsers.adjustTokensRequired') },
            { validator: (_, v: number | null) => (v === 0 ? Promise.reject(new Error(t('adminUsers.adjustTokensRequired'))) : Promise.resolve()) },
          ]}
        >
          <InputNumber<number> style={{ width: '100%' }} step={1} data-testid="user-adjust-tokens" />
        </Form.Item>
        <Form.Item
          name="reason"
          label={t('adminUsers.adjustReason')}
          rules={[{ required: true, whitespace: true, message: t('adminUsers.adjustReasonRequired') }]}
        >
          <Input.TextArea rows={2} maxLength={500} data-testid="user-adjust-reason" />
        </Form.Item>
        <FormError error={adjust.error} />
      </Form>
    </Modal>
  );
}
