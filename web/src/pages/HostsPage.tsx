import { PlusOutlined } from '@ant-design/icons';
import { Badge, Button, Select, Tag } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import { useCallback, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { HostListItem } from '../api/types';
import { useHosts } from '../hooks/hosts';
import { useFormat, useI18n } from '../i18n';
import {
  firstSorter,
  HOST_STATUSES,
  hostParamsFromSearch,
  hostParamsToSearch,
  pageToParams,
  sortOrderFor,
  sorterToSort,
  DEFAULT_HOST_SORT,
  type HostListParams,
  type HostStatus,
} from '../lib/paging';
import { PageHeader } from '../ui/PageHeader';
import { ListSearch, ListTable, ListToolbar } from '../ui/ListTable';


import { CreateHostDialog } from './CreateHostDialog';

const STATUS_COLOR: Record<string, string> = {
  pending: 'default',
  online: 'green',
  stale: 'orange',
  offline: 'default',
  banned: 'red',
};

export default function HostsPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const [sp, setSp] = useSearchParams();
  const params = hostParamsFromSearch(sp);
  const hosts = useHosts(params);
  const [creating, setCreating] = useState(false);
  const [q, setQ] = useState(params.q ?? '');
  // The URL changed under the search box (back button, a nav link): follow it.
  const [urlQ, setUrlQ] = useState(params.q);
  if (urlQ !== params.q) {
    setUrlQ(params.q);
    if ((params.q ?? '') !== q.trim()) setQ(params.q ?? '');
  }

  // Changes merge into the URL as it is when they apply (not as this render
  // saw it), so a late search debounce cannot undo a newer filter change.
  const update = useCallback(
    (p: Partial<HostListParams>) =>
      setSp((cur) => hostParamsToSearch({ ...hostParamsFromSearch(cur), ...p }), { replace: true }),
    [setSp],
  );

  // Typing searches after a short pause; the URL follows.
  const typed = q.trim();
  useEffect(() => {
    const id = setTimeout(() => {
      // Read the address bar as it is now; navigate only when the search changed.
      if ((hostParamsFromSearch(new URLSearchParams(window.location.search)).q ?? '') === typed) return;
      update({ q: typed || undefined, offset: 0 });
    }, 300);
    return () => clearTimeout(id);
  }, [typed, update]);

  const filtered = Boolean(params.q || params.status);
  const columns: ColumnsType<HostListItem> = [
    {
      title: t('hosts.col.name'),
      dataIndex: 'name',
      key: 'name',
      sorter: true,
      sortOrder: sortOrderFor(params.sort, 'name'),
      render: (_, h) => (
        <Link to={`/hosts/${encodeURIComponent(h.id)}`} data-testid="host-link">
          {h.name}
        </Link>
      ),
    },
    {
      title: t('hosts.col.connection'),
      key: 'online',
      render: (_, h) =>
        h.online ? (
          <Badge status="success" text={t('hosts.connected')} />
        ) : (
          <Badge status="default" text={t('hosts.disconnected')} />
        ),
    },
    {
      title: t('hosts.col.status'),
      dataIndex: 'status',
      key: 'status',
      render: (s: string) => (
        <Tag color={STATUS_COLOR[s] ?? 'default'}>
          {(HOST_STATUSES as readonly string[]).includes(s) ? t(`hosts.status.${s}`) : s}
        </Tag>
      ),
    },
    { title: t('hosts.col.os'), dataIndex: 'os', key: 'os', render: (v?: string) => v || '—' },
    { title: t('hosts.col.version'), dataIndex: 'installed_version', key: 'version', render: (v?: string) => v || '—' },
    { title: t('hosts.col.ip'), dataIndex: 'public_ip', key: 'ip', render: (v?: string) => v || '—' },
    {
      title: t('hosts.col.lastSeen'),
      dataIndex: 'last_seen_at',
      key: 'last_seen_at',
      sorter: true,
      sortOrder: sortOrderFor(params.sort, 'last_seen_at'),
      render: (v?: string) => (v ? fmt.dateTime(v) : t('common.never')),
    },
    {
      title: t('hosts.col.created'),
      dataIndex: 'created_at',
      key: 'created_at',
      sorter: true,
      sortOrder: sortOrderFor(params.sort, 'created_at'),
      render: (v: string) => fmt.dateTime(v),
    },
  ];

  const onChange = (
    pg: TablePaginationConfig,
    _f: unknown,
    sorter: SorterResult<HostListItem> | SorterResult<HostListItem>[],
  ) => {
    const s = firstSorter(sorter);
    const sort = sorterToSort(s?.columnKey ?? s?.field, s?.order) ?? DEFAULT_HOST_SORT;
    const sortChanged = sort !== params.sort;
    const paging = pageToParams(sortChanged ? 1 : (pg.current ?? 1), pg.pageSize ?? params.limit);
    update({ ...paging, sort });
  };

  return (
    <>
      <PageHeader
        title={t('hosts.title')}
        extra={
          <Button type="primary" icon={<PlusOutlined />} data-testid="host-create" onClick={() => setCreating(true)}>
            {t('hosts.create')}
          </Button>
        }
      />
      <ListToolbar>
        <ListSearch
          testid="hosts-search"
          label={t('hosts.search')}
          value={q}
          onChange={setQ}
          onSearch={(v) => {
            setQ(v);
            update({ q: v.trim() || undefined, offset: 0 });
          }}
          width={280}
        />
        <Select<HostStatus | ''>
          data-testid="hosts-status-filter"
          aria-label={t('hosts.statusFilter')}
          value={params.status ?? ''}
          onChange={(v) => update({ status: v || undefined, offset: 0 })}
          style={{ width: 180 }}
          options={[
            { value: '', label: t('hosts.allStatuses') },
            ...HOST_STATUSES.map((s) => ({ value: s, label: t(`hosts.status.${s}`) })),
          ]}
        />
      </ListToolbar>
      <ListTable<HostListItem>
        query={hosts}
        testid="hosts-table"
        columns={columns}
        onChange={onChange}
        rowAttrs={(r) => ({ 'data-testid': 'host-row', 'data-host-id': r.id, 'data-online': String(r.online) })}
        page={params}
        totalKey="common.total"
        filtered={filtered}
        emptyText={t('hosts.empty')}
        emptyFilteredText={t('hosts.emptyFiltered')}
        clearText={t('hosts.clearFilters')}
        onClear={() => {
          setQ('');
          update({ q: undefined, status: undefined, offset: 0 });
        }}
        emptyAction={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('hosts.create')}
          </Button>
        }
      />
      <CreateHostDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
