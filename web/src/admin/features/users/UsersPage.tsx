// /admin/users: every customer account, searched on the hub (q over email
// and display name), filtered by status, sorted and paged there; the list's
// state lives in the URL.
import { Alert, Button, Empty, Flex, Input, Select, Table, Typography } from 'antd';
import type { ColumnsType, TablePaginationConfig } from 'antd/es/table';
import type { SorterResult } from 'antd/es/table/interface';
import type { HTMLAttributes } from 'react';
import { Link } from 'react-router';
import { errorMessage, seg } from '../../api';
import type { User } from '../../types';
import { useFormat, useI18n } from '../../../i18n';
import { PAGE_SIZES, pageToParams, paramsToPage } from '../../../lib/paging';
import { ErrorState } from '../../../ui/ErrorState';
import { PageHeader } from '../../../ui/PageHeader';
import { isSkeletonRow, rowKeyOf, withSkeleton } from '../../../ui/tableSkeleton';
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

  const items = users.data?.items ?? undefined;
  const table = withSkeleton(columns, users.data ? (items ?? []) : undefined, users.isPending);
  const total = users.data?.total ?? items?.length ?? 0;
  const filtered = Boolean(state.q || state.filters.status);

  const onChange = (pg: TablePaginationConfig, _f: unknown, sorter: SorterResult<User> | SorterResult<User>[]) => {
    const s = Array.isArray(sorter) ? sorter[0] : sorter;
    const sort = sorterToSort(USERS_SPEC, s?.columnKey ?? s?.field, s?.order);
    const paging = pageToParams(sort !== state.sort ? 1 : (pg.current ?? 1), pg.pageSize ?? state.limit);
    update({ ...paging, sort });
  };

  return (
    <>
      <PageHeader title={t('adminUsers.title')} />
      <Flex gap={8} wrap="wrap" style={{ marginBottom: 16 }}>
        <Input.Search
          data-testid="users-search"
          aria-label={t('adminUsers.search')}
          placeholder={t('adminUsers.search')}
          allowClear
          value={text}
          onChange={(e) => setText(e.target.value)}
          onSearch={searchNow}
          style={{ width: 320, maxWidth: '100%' }}
        />
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
      </Flex>
      {users.isError && !users.data ? (
        <ErrorState error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <>
          {users.isError && (
            <Alert type="warning" showIcon style={{ marginBottom: 12 }} message={errorMessage(users.error)} />
          )}
          <div data-testid="users-table" data-total={total} data-fetching={String(users.isFetching)}>
            <Table
              rowKey={rowKeyOf}
              size="middle"
              columns={table.columns}
              dataSource={table.dataSource}
              scroll={{ x: 'max-content' }}
              onChange={onChange}
              onRow={(r) =>
                (isSkeletonRow(r)
                  ? {}
                  : { 'data-testid': 'users-row', 'data-id': r.id, 'data-status': r.status }) as HTMLAttributes<HTMLElement>
              }
              pagination={{
                current: paramsToPage(state),
                pageSize: state.limit,
                total,
                showSizeChanger: true,
                pageSizeOptions: PAGE_SIZES.map(String),
                showTotal: (n) => t('adminUsers.total', { total: fmt.number(n) }),
              }}
              locale={{
                emptyText: (
                  <Empty
                    image={Empty.PRESENTED_IMAGE_SIMPLE}
                    description={
                      <Typography.Text type="secondary">
                        {filtered ? t('adminUsers.emptyFiltered') : t('adminUsers.empty')}
                      </Typography.Text>
                    }
                  >
                    {filtered ? (
                      <Button
                        onClick={() => {
                          setText('');
                          update({ q: undefined, filters: { status: undefined } });
                        }}
                      >
                        {t('adminUsers.clearFilters')}
                      </Button>
                    ) : null}
                  </Empty>
                ),
              }}
            />
          </div>
        </>
      )}
    </>
  );
}
