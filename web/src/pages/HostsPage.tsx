import { PlusOutlined } from '@ant-design/icons';
import { Alert, Badge, Button, Empty, Flex, Input, Select, Table, Tag, Typography } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import { useCallback, useEffect, useState, type HTMLAttributes } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { HostListItem } from '../api/types';
import { useHosts } from '../hooks/hosts';
import { useFormat, useI18n } from '../i18n';
import {
  HOST_STATUSES,
  PAGE_SIZES,
  hostParamsFromSearch,
  hostParamsToSearch,
  pageToParams,
  paramsToPage,
  sortOrderFor,
  sorterToSort,
  DEFAULT_HOST_SORT,
  type HostListParams,
  type HostStatus,
} from '../lib/paging';
import { ErrorState } from '../ui/ErrorState';
import { PageHeader } from '../ui/PageHeader';
import { isSkeletonRow, rowKeyOf, withSkeleton } from '../ui/tableSkeleton';
import { errorMessage } from '../api/client';
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
      setSp(
        (cur) => {
          const p = hostParamsFromSearch(cur);
          return (p.q ?? '') === typed ? cur : hostParamsToSearch({ ...p, q: typed || undefined, offset: 0 });
        },
        { replace: true },
      );
    }, 300);
    return () => clearTimeout(id);
  }, [typed, setSp]);

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

  const items = hosts.data?.items ?? undefined;
  const table = withSkeleton(columns, hosts.data ? (items ?? []) : undefined, hosts.isPending);
  const total = hosts.data?.total ?? items?.length ?? 0;

  const onChange = (
    pg: TablePaginationConfig,
    _f: unknown,
    sorter: SorterResult<HostListItem> | SorterResult<HostListItem>[],
  ) => {
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
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
      <Flex gap={8} wrap="wrap" style={{ marginBottom: 16 }}>
        <Input.Search
          data-testid="hosts-search"
          aria-label={t('hosts.search')}
          placeholder={t('hosts.search')}
          allowClear
          value={q}
          onChange={(e) => setQ(e.target.value)}
          onSearch={(v) => {
            setQ(v);
            update({ q: v.trim() || undefined, offset: 0 });
          }}
          style={{ width: 280, maxWidth: '100%' }}
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
      </Flex>
      {hosts.isError && !hosts.data ? (
        <ErrorState error={hosts.error} onRetry={() => void hosts.refetch()} />
      ) : (
        <>
          {hosts.isError && (
            <Alert type="warning" showIcon style={{ marginBottom: 12 }} message={errorMessage(hosts.error)} />
          )}
          <div data-testid="hosts-table">
            <Table
              rowKey={rowKeyOf}
              columns={table.columns}
              dataSource={table.dataSource}
              scroll={{ x: 'max-content' }}
              onChange={onChange}
              onRow={(r) =>
                (isSkeletonRow(r)
                  ? {}
                  : {
                      'data-testid': 'host-row',
                      'data-host-id': r.id,
                      'data-online': String(r.online),
                    }) as HTMLAttributes<HTMLElement>
              }
              pagination={{
                current: paramsToPage(params),
                pageSize: params.limit,
                total,
                showSizeChanger: true,
                pageSizeOptions: PAGE_SIZES.map(String),
                showTotal: (n) => t('common.total', { total: fmt.number(n) }),
                hideOnSinglePage: false,
              }}
              locale={{
                emptyText: (
                  <Empty
                    image={Empty.PRESENTED_IMAGE_SIMPLE}
                    description={
                      <Typography.Text type="secondary">
                        {filtered ? t('hosts.emptyFiltered') : t('hosts.empty')}
                      </Typography.Text>
                    }
                  >
                    {filtered ? (
                      <Button
                        onClick={() => {
                          setQ('');
                          update({ q: undefined, status: undefined, offset: 0 });
                        }}
                      >
                        {t('hosts.clearFilters')}
                      </Button>
                    ) : (
                      <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
                        {t('hosts.create')}
                      </Button>
                    )}
                  </Empty>
                ),
              }}
            />
          </div>
        </>
      )}
      <CreateHostDialog open={creating} onClose={() => setCreating(false)} />
    </>
  );
}
