// /admin/hosts: the whole fleet, searched and filtered on the hub (q over the
// owner's email, host name, host id and public IP), sorted and paged there;
// the list's state lives in the URL and the rows follow the agents (5 s).
import { Badge, Input, Select, Tag } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import { useState } from 'react';
import { Link } from 'react-router';
import { seg } from '../../api';
import { useFormat, useI18n } from '../../../i18n';
import { firstSorter, HOST_STATUSES, pageToParams } from '../../../lib/paging';
import { PageHeader } from '../../../ui/PageHeader';
import { ListSearch, ListTable, ListToolbar } from '../../../ui/ListTable';
import { useAdminHosts } from './hooks';
import { sortOrderFor, sorterToSort } from './listQuery';
import { HOSTS_SPEC, OS_FAMILIES } from './spec';
import { STATUS_COLOR, statusLabel } from './status';
import type { AdminHostItem } from './types';
import { useListState } from './useListState';

export default function HostsPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { state, update, text, setText, searchNow } = useListState(HOSTS_SPEC);
  const hosts = useAdminHosts(state);
  const f = state.filters;
  const [version, setVersion] = useState(f.agent_version ?? '');
  const [urlVersion, setUrlVersion] = useState(f.agent_version);
  if (urlVersion !== f.agent_version) {
    setUrlVersion(f.agent_version);
    setVersion(f.agent_version ?? '');
  }

  const sortable = (key: string) => ({ key, sorter: true, sortOrder: sortOrderFor(state.sort, key) });
  const columns: ColumnsType<AdminHostItem> = [
    {
      title: t('adminHosts.col.name'),
      dataIndex: 'name',
      ...sortable('name'),
      render: (_, h) => (
        <Link to={`/admin/hosts/${seg(h.id)}`} data-testid="hosts-link">
          {h.name}
        </Link>
      ),
    },
    {
      title: t('adminHosts.col.owner'),
      dataIndex: 'user_email',
      ...sortable('user_email'),
      render: (_, h) => <Link to={`/admin/users/${seg(h.user_id)}`}>{h.user_email}</Link>,
    },
    {
      title: t('adminHosts.col.connection'),
      key: 'online',
      render: (_, h) =>
        h.online ? (
          <Badge status="success" text={t('adminHosts.connected')} />
        ) : (
          <Badge status="default" text={t('adminHosts.disconnected')} />
        ),
    },
    {
      title: t('adminHosts.col.status'),
      dataIndex: 'status',
      ...sortable('status'),
      render: (s: string) => <Tag color={STATUS_COLOR[s] ?? 'default'}>{statusLabel(t, s)}</Tag>,
    },
    { title: t('adminHosts.col.os'), dataIndex: 'os', key: 'os', responsive: ['lg'], render: (v?: string) => v || '—' },
    {
      title: t('adminHosts.col.version'),
      dataIndex: 'installed_version',
      ...sortable('agent_version'),
      responsive: ['md'],
      render: (v?: string) => v || '—',
    },
    { title: t('adminHosts.col.ip'), dataIndex: 'public_ip', key: 'ip', responsive: ['xl'], render: (v?: string) => v || '—' },
    {
      title: t('adminHosts.col.lastSeen'),
      dataIndex: 'last_seen_at',
      ...sortable('last_seen_at'),
      responsive: ['md'],
      render: (v?: string) => (v ? fmt.dateTime(v) : t('adminHosts.never')),
    },
    {
      title: t('adminHosts.col.created'),
      dataIndex: 'created_at',
      ...sortable('created_at'),
      // Below 1600 px the list's default order (newest first) stands for it.
      responsive: ['xxl'],
      render: (v: string) => fmt.dateTime(v),
    },
  ];

  const filtered = Boolean(state.q || Object.keys(f).length);

  const onChange = (
    pg: TablePaginationConfig,
    _f: unknown,
    sorter: SorterResult<AdminHostItem> | SorterResult<AdminHostItem>[],
  ) => {
    const s = firstSorter(sorter);
    const sort = sorterToSort(HOSTS_SPEC, s?.columnKey ?? s?.field, s?.order);
    const paging = pageToParams(sort !== state.sort ? 1 : (pg.current ?? 1), pg.pageSize ?? state.limit);
    update({ ...paging, sort });
  };

  const osOptions = [...OS_FAMILIES, ...(f.os && !(OS_FAMILIES as readonly string[]).includes(f.os) ? [f.os] : [])];

  return (
    <>
      <PageHeader title={t('adminHosts.title')} />
      <ListToolbar>
        <ListSearch testid="hosts-search" label={t('adminHosts.search')} value={text} onChange={setText} onSearch={searchNow} width={340} />
        <Select<string>
          data-testid="hosts-status-filter"
          aria-label={t('adminHosts.filter.status')}
          value={f.status ?? ''}
          onChange={(v) => update({ filters: { status: v || undefined } })}
          style={{ width: 150 }}
          options={[
            { value: '', label: t('adminHosts.filter.allStatuses') },
            ...HOST_STATUSES.map((s) => ({ value: s, label: statusLabel(t, s) })),
          ]}
        />
        <Select<string>
          data-testid="hosts-online-filter"
          aria-label={t('adminHosts.filter.online')}
          value={f.online ?? ''}
          onChange={(v) => update({ filters: { online: v || undefined } })}
          style={{ width: 150 }}
          options={[
            { value: '', label: t('adminHosts.filter.anyConnection') },
            { value: 'true', label: t('adminHosts.connected') },
            { value: 'false', label: t('adminHosts.disconnected') },
          ]}
        />
        <Select<string>
          data-testid="hosts-os-filter"
          aria-label={t('adminHosts.filter.os')}
          value={f.os ?? ''}
          onChange={(v) => update({ filters: { os: v || undefined } })}
          style={{ width: 130 }}
          options={[
            { value: '', label: t('adminHosts.filter.anyOs') },
            ...osOptions.map((o) => ({ value: o, label: o })),
          ]}
        />
        <Input.Search
          data-testid="hosts-version-filter"
          aria-label={t('adminHosts.filter.version')}
          placeholder={t('adminHosts.filter.version')}
          allowClear
          value={version}
          onChange={(e) => {
            setVersion(e.target.value);
            if (!e.target.value) update({ filters: { agent_version: undefined } });
          }}
          onSearch={(v) => update({ filters: { agent_version: v.trim() || undefined } })}
          style={{ width: 170 }}
        />
      </ListToolbar>
      <ListTable<AdminHostItem>
        query={hosts}
        testid="hosts-table"
        stateAttrs
        size="middle"
        columns={columns}
        onChange={onChange}
        rowAttrs={(r) => ({ 'data-testid': 'hosts-row', 'data-id': r.id, 'data-online': String(r.online) })}
        page={state}
        totalKey="adminHosts.total"
        filtered={filtered}
        emptyText={t('adminHosts.empty')}
        emptyFilteredText={t('adminHosts.emptyFiltered')}
        clearText={t('adminHosts.clearFilters')}
        onClear={() => {
          setText('');
          setVersion('');
          update({ q: undefined, filters: { status: undefined, online: undefined, os: undefined, agent_version: undefined } });
        }}
      />
    </>
  );
}
