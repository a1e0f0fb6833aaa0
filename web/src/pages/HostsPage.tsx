import { MinusOutlined, PlayCircleOutlined, PlusOutlined, TagsOutlined } from '@ant-design/icons';
import { Badge, Button, Flex, Select, Tag, Typography } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import { useCallback, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
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
  filterQueryFromParams,
  hostsFiltered,
  paramsFromFilterQuery,
  type HostListParams,
  type HostStatus,
} from '../lib/paging';
import { PageHeader } from '../ui/PageHeader';
import { ListSearch, ListTable, ListToolbar } from '../ui/ListTable';
import { tagsOf, type Tags } from '../lib/tags';
import { newJobHref } from '../features/jobs/jobs';
import { TagList } from '../features/tags/TagList';
import { TagSelect } from '../features/tags/TagSelect';
import { EditTagsDialog } from '../features/tags/EditTagsDialog';
import { BulkTagsDialog } from '../features/tags/BulkTagsDialog';
import { SavedFilters } from '../features/tags/SavedFilters';
import { CreateHostDialog } from './CreateHostDialog';
import { useSearchBox } from '../lib/useSearchBox';

/** Every criterion of the list, unset: what "clear filters" applies. */
const NO_CRITERIA: Partial<HostListParams> = {
  q: undefined,
  status: undefined,
  tag: undefined,
  online: undefined,
  os: undefined,
  agent_version: undefined,
  filter: undefined,
};

const STATUS_COLOR: Record<string, string> = {
  pending: 'default',
  online: 'green',
  stale: 'orange',
  offline: 'default',
  banned: 'red',
};

const readHostQ = (sp: URLSearchParams) => hostParamsFromSearch(sp).q;

export default function HostsPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const [sp, setSp] = useSearchParams();
  const params = hostParamsFromSearch(sp);
  const hosts = useHosts(params);
  const navigate = useNavigate();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<{ id: string; name: string; tags: Tags } | null>(null);
  const [bulk, setBulk] = useState<'add' | 'remove' | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  // Changes merge into the URL as it is when they apply (not as this render
  // saw it), so a late search debounce cannot undo a newer filter change.
  const update = useCallback(
    (p: Partial<HostListParams>) =>
      setSp((cur) => hostParamsToSearch({ ...hostParamsFromSearch(cur), ...p }), { replace: true }),
    [setSp],
  );

  // Typing searches after a short pause; the URL follows.
  const applyQ = useCallback(
    (typed: string | undefined) => update({ q: typed, filter: undefined, offset: 0 }),
    [update],
  );
  const { text: q, setText: setQ } = useSearchBox(params.q, readHostQ, applyQ);

  // A criterion changed by hand: the list no longer shows a saved filter as it was saved.
  const narrow = (p: Partial<HostListParams>) => update({ ...p, filter: undefined, offset: 0 });
  const filtered = hostsFiltered(params);
  const columns: ColumnsType<HostListItem> = [
    {
      title: t('hosts.col.name'),
      dataIndex: 'name',
      key: 'name',
      fixed: 'left',
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
    {
      title: t('hosts.col.tags'),
      key: 'tags',
      render: (_, h) => (
        <TagList
          tags={tagsOf(h)}
          onPick={(expr) => {
            if (!(params.tag ?? []).includes(expr)) narrow({ tag: [...(params.tag ?? []), expr] });
          }}
        />
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
    {
      title: t('common.actions'),
      key: 'actions',
      render: (_, h) => (
        <Button
          size="small"
          icon={<TagsOutlined />}
          data-testid="host-edit-tags"
          aria-label={t('tags.editFor', { name: h.name })}
          onClick={() => setEditing({ id: h.id, name: h.name, tags: tagsOf(h) })}
        >
          {t('tags.edit')}
        </Button>
      ),
    },
  ];
  const chips: { key: 'online' | 'os' | 'agent_version'; text: string }[] = [];
  if (params.online) chips.push({ key: 'online', text: t(params.online === 'true' ? 'hosts.connected' : 'hosts.disconnected') });
  if (params.os) chips.push({ key: 'os', text: `${t('hosts.col.os')}: ${params.os}` });
  if (params.agent_version) chips.push({ key: 'agent_version', text: `${t('hosts.col.version')}: ${params.agent_version}` });

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
          <>
            {(params.tag?.length ?? 0) > 0 && (
              <Button
                icon={<PlayCircleOutlined />}
                data-testid="hosts-run-tags"
                onClick={() => void navigate(newJobHref({ tags: params.tag }))}
              >
                {t('hosts.runOnTags')}
              </Button>
            )}
            <Button type="primary" icon={<PlusOutlined />} data-testid="host-create" onClick={() => setCreating(true)}>
              {t('hosts.create')}
            </Button>
          </>
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
            narrow({ q: v.trim() || undefined });
          }}
          width={280}
        />
        <Select<HostStatus | ''>
          data-testid="hosts-status-filter"
          aria-label={t('hosts.statusFilter')}
          value={params.status ?? ''}
          onChange={(v) => narrow({ status: v || undefined })}
          style={{ width: 180 }}
          options={[
            { value: '', label: t('hosts.allStatuses') },
            ...HOST_STATUSES.map((s) => ({ value: s, label: t(`hosts.status.${s}`) })),
          ]}
        />
        <TagSelect
          testid="hosts-tag-filter"
          keys
          value={params.tag ?? []}
          onChange={(v) => narrow({ tag: v.length ? v : undefined })}
          placeholder={t('hosts.tagFilter')}
          width={260}
        />
        <SavedFilters
          current={params.filter}
          query={filterQueryFromParams(params)}
          canSave={filtered}
          onPick={(f) => {
            if (!f) return update({ filter: undefined });
            setQ(f.query.q ?? '');
            update({ ...NO_CRITERIA, ...paramsFromFilterQuery(f.query), filter: f.id, offset: 0 });
          }}
        />
        {chips.map((c) => (
          <Tag key={c.key} closable onClose={() => narrow({ [c.key]: undefined })} style={{ alignSelf: 'center' }}>
            {c.text}
          </Tag>
        ))}
      </ListToolbar>
      {selected.length > 0 && (
        <Flex data-testid="hosts-selection" gap={8} wrap="wrap" align="center" style={{ marginBottom: 12 }}>
          <Typography.Text strong>{t('hosts.selected', { count: selected.length })}</Typography.Text>
          <Button icon={<PlusOutlined />} data-testid="hosts-add-tags" onClick={() => setBulk('add')}>
            {t('tags.addTags')}
          </Button>
          <Button icon={<MinusOutlined />} data-testid="hosts-remove-tags" onClick={() => setBulk('remove')}>
            {t('tags.removeTags')}
          </Button>
          <Button
            type="primary"
            icon={<PlayCircleOutlined />}
            data-testid="hosts-run-selected"
            onClick={() => void navigate(newJobHref({ hostIds: selected }))}
          >
            {t('hosts.runOnSelected')}
          </Button>
          <Button type="link" onClick={() => setSelected([])}>
            {t('hosts.clearSelection')}
          </Button>
        </Flex>
      )}
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
          update({ ...NO_CRITERIA, offset: 0 });
        }}
        rowSelection={{
          selectedRowKeys: selected,
          fixed: true,
          preserveSelectedRowKeys: true,
          onChange: (keys) => setSelected(keys.map(String)),
          getCheckboxProps: (h) => ({ 'aria-label': h.name, 'data-testid': 'host-select' }) as object,
        }}
        emptyAction={
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            {t('hosts.create')}
          </Button>
        }
      />
      <CreateHostDialog open={creating} onClose={() => setCreating(false)} />
      {editing && <EditTagsDialog host={editing} onClose={() => setEditing(null)} />}
      {bulk && <BulkTagsDialog mode={bulk} hostIds={selected} onClose={() => setBulk(null)} onDone={() => undefined} />}
    </>
  );
}
