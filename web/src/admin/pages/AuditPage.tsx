// The audit log, newest first, paged by the hub: filter by admin, action,
// target type and time; each row links to its target.
import { useQuery } from '@tanstack/react-query';
import { Button, Flex, Input, Select, Tag, Tooltip, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link } from 'react-router';
import { useFormat, useI18n } from '../../i18n';
import { useCursorPages } from '../../lib/useCursorPages';
import { PageHeader } from '../../ui/PageHeader';
import { adminApi } from '../api';
import { AUDIT_ACTIONS, localToRFC3339, rfc3339ToLocal, targetLink, TARGET_TYPES } from '../lib/audit';
import { useUrlList } from '../lib/list';
import { aqk } from '../queryKeys';
import { useAdmin } from '../session';
import type { AdminPage, AuditEntry, AuditPage as AuditList } from '../types';

/** An id short enough for a table cell (the whole id is in the title). */
const shortId = (id: string) => (id.length > 13 ? id.slice(0, 8) + '…' : id);
import { QueryTable } from '../ui/QueryTable';
import { rowProps } from '../ui/rows';

export default function AuditPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const list = useUrlList(['admin_id', 'action', 'target_type', 'since', 'until'] as const);
  const f = list.filters;
  const q = useCursorPages({
    list: 'admin.audit',
    queryKey: aqk.audit({ ...list.page, ...f }),
    page: list.page,
    criteria: f,
    fetch: (query, signal) => adminApi.get<AuditList>('/v1/admin/audit-logs', query, signal),
  });
  const filtered = Object.values(f).some(Boolean);
  // Owners may list admins: their usernames stand in for the ids.
  const { can } = useAdmin();
  const admins = useQuery({
    queryKey: ['admin', 'admins', 'names'],
    queryFn: ({ signal }) => adminApi.get<AdminPage>('/v1/admin/admins', { limit: 200 }, signal),
    enabled: can('admins.manage'),
    staleTime: 60_000,
  });
  const names = new Map((admins.data?.items ?? []).map((a) => [a.id, a.username]));

  const columns: ColumnsType<AuditEntry> = [
    { title: t('admin.audit.when'), dataIndex: 'created_at', render: (v: string) => fmt.dateTime(v) },
    { title: t('admin.audit.action'), dataIndex: 'action', render: (v: string) => <code data-testid="audit-action-cell">{v}</code> },
    {
      title: t('admin.audit.target'),
      key: 'target',
      render: (_: unknown, r) => {
        const to = targetLink(r.target_type, r.target_id);
        const text = `${t(`admin.audit.type.${r.target_type}`)} ${r.target_type === 'billing' ? '' : shortId(r.target_id)}`.trim();
        return to ? (
          <Link to={to} data-testid="audit-target" data-type={r.target_type} title={r.target_id}>
            {text}
          </Link>
        ) : (
          <span title={r.target_id}>{text}</span>
        );
      },
    },
    {
      title: t('admin.audit.admin'),
      dataIndex: 'admin_id',
      render: (v: string, r) => (
        <Flex gap={4} align="center">
          <Tooltip title={t('admin.audit.onlyThisAdmin')}>
            <Typography.Link data-testid="audit-admin-link" onClick={() => list.setFilter('admin_id', v)}>
              {names.get(v) ?? shortId(v)}
            </Typography.Link>
          </Tooltip>
          <Tag style={{ margin: 0 }}>{r.admin_role}</Tag>
        </Flex>
      ),
    },
    { responsive: ['md'], title: t('admin.audit.ip'), dataIndex: 'client_ip' },
    {
      responsive: ['md'],
      title: t('admin.audit.detail'),
      dataIndex: 'detail',
      render: (v: unknown) =>
        v === undefined || v === null ? (
          '—'
        ) : (
          <Typography.Text code style={{ fontSize: 12, wordBreak: 'break-all' }}>
            {JSON.stringify(v)}
          </Typography.Text>
        ),
    },
  ];

  return (
    <>
      <PageHeader title={t('admin.nav.audit')} />
      <Flex gap={8} wrap="wrap" style={{ marginBottom: 12 }} align="center">
        <Input.Search
          data-testid="audit-search"
          allowClear
          placeholder={t('admin.audit.adminId')}
          style={{ width: 220 }}
          key={f.admin_id ?? ''}
          defaultValue={f.admin_id}
          onSearch={(v) => list.setFilter('admin_id', v.trim())}
        />
        <Select
          data-testid="audit-action"
          allowClear
          showSearch
          placeholder={t('admin.audit.allActions')}
          style={{ minWidth: 200 }}
          value={f.action}
          onChange={(v?: string) => list.setFilter('action', v)}
          options={AUDIT_ACTIONS.map((a) => ({ value: a, label: a }))}
        />
        <Select
          data-testid="audit-target-type"
          allowClear
          placeholder={t('admin.audit.allTargets')}
          style={{ minWidth: 160 }}
          value={f.target_type}
          onChange={(v?: string) => list.setFilter('target_type', v)}
          options={TARGET_TYPES.map((a) => ({ value: a, label: t(`admin.audit.type.${a}`) }))}
        />
        <label>
          {t('admin.audit.since')}{' '}
          <Input
            type="datetime-local"
            data-testid="audit-since"
            style={{ width: 200 }}
            value={rfc3339ToLocal(f.since)}
            onChange={(e) => list.setFilter('since', localToRFC3339(e.target.value))}
          />
        </label>
        <label>
          {t('admin.audit.until')}{' '}
          <Input
            type="datetime-local"
            data-testid="audit-until"
            style={{ width: 200 }}
            value={rfc3339ToLocal(f.until)}
            onChange={(e) => list.setFilter('until', localToRFC3339(e.target.value))}
          />
        </label>
        {filtered ? (
          <Button
            data-testid="audit-clear"
            onClick={list.clearFilters}
          >
            {t('admin.audit.clear')}
          </Button>
        ) : null}
      </Flex>
      <QueryTable<AuditEntry>
        query={q}
        testid="audit-table"
        columns={columns}
        onRow={(r) => ({ ...rowProps('audit', r.id), 'data-action': r.action } as ReturnType<typeof rowProps>)}
        pagination={list.pagination(q.data?.total)}
      />
    </>
  );
}
