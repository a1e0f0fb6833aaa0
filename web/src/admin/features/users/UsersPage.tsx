// /admin/users: every customer account, searched on the hub (q over email
// and display name), filtered by status, sorted and paged there; the list's
// state lives in the URL.
import { Select } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import { Link } from 'react-router';
import { seg } from '../../api';
import type { User } from '../../types';
import { useFormat, useI18n } from '../../../i18n';
import { firstSorter, pageToParams } from '../../../lib/paging';
import { PageHeader } from '../../../ui/PageHeader';
import { ListSearch, ListTable, ListToolbar } from '../../../ui/ListTable';
import { sortOrderFor, sorterToSort } from '../hosts/listQuery';
import { useListState } from '../hosts/useListState';
import { useAdminUsers } from './hooks';
import { USER_STATUSES, USERS_SPEC } from './spec';
import { UserStatusTag } from './UserStatusTag';

export default function UsersPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { state, update, text, setText, searchNow } = useListState(USERS_SPEC);
  const users = useAdminUsers(state);

  const sortable = (key: string) => ({ key, sorter: true, sortOrder: sortOrderFor(state.sort, key) });
  const columns: ColumnsType<User> = [
    {
      title: t('adminUsers.col.email'),
      dataIndex: 'email',
      ...sortable('email'),
      render: (_, u) => (
        <Link to={`/admin/users/${seg(u.id)}`} data-testid="users-link">
          {u.email}
        </Link>
      ),
    },
    {
      title: t('adminUsers.col.displayName'),
      dataIndex: 'display_name',
      ...sortable('display_name'),
      responsive: ['md'],
      render: (v: string) => v || '—',
    },
    {
      title: t('adminUsers.col.status'),
      dataIndex: 'status',
      key: 'status',
      render: (s: string) => <UserStatusTag status={s} />,
    },
    {
      title: t('adminUsers.col.created'),
      dataIndex: 'created_at',
      ...sortable('created_at'),
      render: (v: string) => fmt.dateTime(v),
    },
  ];

  const filtered = Boolean(state.q || state.filters.status);

  const onChange = (pg: TablePaginationConfig, _f: unknown, sorter: SorterResult<User> | SorterResult<User>[]) => {
    const s = firstSorter(sorter);
    const sort = sorterToSort(USERS_SPEC, s?.columnKey ?? s?.field, s?.order);
    const paging = pageToParams(sort !== state.sort ? 1 : (pg.current ?? 1), pg.pageSize ?? state.limit);
    update({ ...paging, sort });
  };

  return (
    <>
      <PageHeader title={t('adminUsers.title')} />
      <ListToolbar>
        <ListSearch testid="users-search" label={t('adminUsers.search')} value={text} onChange={setText} onSearch={searchNow} width={320} />
        <Select<string>
          data-testid="users-status-filter"
          aria-label={t('adminUsers.filter.status')}
          value={state.filters.status ?? ''}
          onChange={(v) => update({ filters: { status: v || undefined } })}
          style={{ width: 160 }}
          options={[
            { value: '', label: t('adminUsers.filter.allStatuses') },
            ...USER_STATUSES.map((s) => ({ value: s, label: t(`adminUsers.status.${s}`) })),
          ]}
        />
      </ListToolbar>
      <ListTable<User>
        query={users}
        testid="users-table"
        stateAttrs
        size="middle"
        columns={columns}
        onChange={onChange}
        rowAttrs={(r) => ({ 'data-testid': 'users-row', 'data-id': r.id, 'data-status': r.status })}
        page={state}
        totalKey="adminUsers.total"
        filtered={filtered}
        emptyText={t('adminUsers.empty')}
        emptyFilteredText={t('adminUsers.emptyFiltered')}
        clearText={t('adminUsers.clearFilters')}
        onClear={() => {
          setText('');
          update({ q: undefined, filters: { status: undefined } });
        }}
      />
    </>
  );
}
