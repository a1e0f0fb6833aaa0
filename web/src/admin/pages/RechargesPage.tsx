// Recharge orders of every user: filter by status (and user), paged by the
// hub; a paid order can be refunded (with a reason, confirmed) by the roles
// that may move money.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Input, Select, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link } from 'react-router';
import { useFormat, useI18n } from '../../i18n';
import { useCursorPages } from '../../lib/useCursorPages';
import { PageHeader } from '../../ui/PageHeader';
import { adminApi, seg } from '../api';
import { useUrlList } from '../lib/list';
import { aqk } from '../queryKeys';
import { useAdmin } from '../session';
import { QueryTable } from '../ui/QueryTable';
import { rowProps } from '../ui/rows';
import type { Recharge, RechargePage, RechargeStatus, Refunded } from '../types';

const RECHARGE_STATUSES: readonly RechargeStatus[] = ['pending', 'paid', 'refunded', 'expired'];
const STATUS_COLOR: Record<RechargeStatus, string> = { pending: 'gold', paid: 'green', refunded: 'purple', expired: 'default' };

export default function RechargesPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { modal } = App.useApp();
  const { can } = useAdmin();
  const qc = useQueryClient();
  const list = useUrlList(['status', 'user_id'] as const);
  const { status, user_id } = list.filters;
  const q = useCursorPages({
    list: 'admin.recharges',
    queryKey: aqk.recharges.list({ ...list.page, status, user_id }),
    page: list.page,
    criteria: { status, user_id },
    fetch: (query, signal) => adminApi.get<RechargePage>('/v1/admin/recharges', query, signal),
  });
  const refund = useMutation({
    mutationFn: (v: { id: string; reason: string }) =>
      adminApi.post<Refunded>(`/v1/admin/recharges/${seg(v.id)}/refund`, { reason: v.reason }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: aqk.recharges.all }),
  });

  const askRefund = (r: Recharge) => {
    let reason = '';
    modal.confirm({
      title: t('admin.recharges.refundTitle', { order: r.order_no }),
      content: (
        <>
          <p>{t('admin.recharges.refundText', { cny: fmt.cny(r.amount_cny), tokens: fmt.tokens(r.tokens) })}</p>
          <Input.TextArea
            data-testid="refund-reason"
            aria-label={t('admin.recharges.reason')}
            placeholder={t('admin.recharges.reason')}
            maxLength={500}
            autoSize={{ minRows: 2 }}
            onChange={(e) => (reason = e.target.value)}
          />
        </>
      ),
      okText: t('admin.recharges.refund'),
      okButtonProps: { danger: true, 'data-testid': 'confirm-ok' },
      cancelText: t('common.cancel'),
      onOk: async () => {
        if (!reason.trim()) {
          void modal.error({ title: t('admin.recharges.reasonRequired') });
          throw new Error('reason required');
        }
        await refund.mutateAsync({ id: r.id, reason: reason.trim() });
      },
    });
  };

  const columns: ColumnsType<Recharge> = [
    { title: t('admin.recharges.amount'), dataIndex: 'amount_cny', align: 'right', render: (v: number) => fmt.cny(v) },
    {
      title: t('admin.recharges.status'),
      dataIndex: 'status',
      render: (v: RechargeStatus) => (
        <Tag color={STATUS_COLOR[v]} data-status={v}>
          {t(`admin.recharges.status.${v}`)}
        </Tag>
      ),
    },
    { title: t('admin.recharges.created'), dataIndex: 'created_at', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('admin.recharges.user'),
      dataIndex: 'user_id',
      render: (v: string) => (
        <Link to={`/admin/users/${seg(v)}`} title={v}>
          {v.length > 13 ? v.slice(0, 8) + '…' : v}
        </Link>
      ),
    },
    { responsive: ['md'], title: t('admin.recharges.order'), dataIndex: 'order_no', render: (v: string) => <code>{v}</code> },
    { responsive: ['md'], title: t('admin.recharges.tokens'), dataIndex: 'tokens', align: 'right', render: (v: number) => fmt.tokens(v) },
    { responsive: ['md'], title: t('admin.recharges.provider'), dataIndex: 'provider', render: (v?: string) => v || '—' },
    { responsive: ['md'], title: t('admin.recharges.paid'), dataIndex: 'paid_at', render: (v?: string) => fmt.dateTime(v) },
  ];
  if (can('recharges.refund')) {
    columns.push({
      title: t('common.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_: unknown, r) =>
        r.status === 'paid' ? (
          <Button size="small" danger data-testid="recharge-refund" onClick={() => askRefund(r)}>
            {t('admin.recharges.refund')}
          </Button>
        ) : null,
    });
  }

  return (
    <>
      <PageHeader title={t('admin.nav.recharges')} />
      <Flex gap={8} wrap="wrap" style={{ marginBottom: 12 }}>
        <Select
          data-testid="recharges-status-filter"
          allowClear
          placeholder={t('admin.recharges.allStatuses')}
          style={{ minWidth: 180 }}
          value={status}
          onChange={(v?: string) => list.setFilter('status', v)}
          options={RECHARGE_STATUSES.map((s) => ({ value: s, label: t(`admin.recharges.status.${s}`) }))}
        />
        <Input.Search
          data-testid="recharges-search"
          allowClear
          placeholder={t('admin.recharges.userId')}
          style={{ maxWidth: 320 }}
          defaultValue={user_id}
          onSearch={(v) => list.setFilter('user_id', v.trim())}
        />
      </Flex>
      <QueryTable<Recharge>
        query={q}
        testid="recharges-table"
        columns={columns}
        loading={q.isFetching && !q.data}
        onRow={(r) => rowProps('recharges', r.id)}
        pagination={list.pagination(q.data?.total)}
      />
    </>
  );
}
