// Administrators (owner only): list with search and filters, create with a
// role, change a role, disable and enable. Granting owner asks for the
// password again (step-up). The hub refuses to disable or demote the last
// enabled owner (409 last_owner); its message is shown.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Form, Input, Result, Select, Space, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useFormat, useI18n } from '../../i18n';
import { useCursorPages } from '../../lib/useCursorPages';
import { PageHeader } from '../../ui/PageHeader';
import { useConfirm } from '../../ui/useConfirm';
import { adminApi, seg } from '../api';
import { stepUpHeader } from '../hooks';
import { useUrlList } from '../lib/list';
import { passwordProblem, rule, usernameProblem } from '../lib/validate';
import { aqk } from '../queryKeys';
import { useAdmin } from '../session';
import { ROLES, type AdminInfo, type AdminPage, type Role } from '../types';
import { QueryTable } from '../ui/QueryTable';
import { FormModal } from '../ui/FormModal';
import { rowProps } from '../ui/rows';
import { StepUpDialog } from '../ui/StepUpDialog';

interface CreateForm {
  username: string;
  password: string;
  role: Role;
}

/** A write waiting for the step-up prompt (granting owner). */
type Pending = { kind: 'create'; body: CreateForm } | { kind: 'role'; admin: AdminInfo };

function CreateDialog({
  open,
  onClose,
  onNeedsStepUp,
}: {
  open: boolean;
  onClose: () => void;
  onNeedsStepUp: (body: CreateForm) => void;
}) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const [form] = Form.useForm<CreateForm>();
  const create = useMutation({
    mutationFn: (b: CreateForm) => adminApi.post<AdminInfo>('/v1/admin/admins', b),
    meta: { errorShownInline: true },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: aqk.admins.all });
      onClose();
    },
  });
  const submit = (v: CreateForm) => {
    const body = { ...v, username: v.username.trim() };
    if (body.role === 'owner') onNeedsStepUp(body);
    else create.mutate(body);
  };
  return (
    <FormModal<CreateForm>
      open={open}
      title={t('admin.admins.createTitle')}
      onCancel={onClose}
      okText={t('common.create')}
      okTestId="admin-create-submit"
      pending={create.isPending}
      error={create.error}
      form={form}
      initialValues={{ role: 'viewer' }}
      onFinish={submit}
    >
      <Form.Item name="username" label={t('admin.signin.username')} rules={[rule(usernameProblem, t)]}>
        <Input data-testid="admin-new-username" autoComplete="off" />
      </Form.Item>
      <Form.Item name="password" label={t('auth.password')} rules={[rule(passwordProblem, t)]} extra={t('auth.passwordHint')}>
        <Input.Password data-testid="admin-new-password" autoComplete="new-password" />
      </Form.Item>
      <Form.Item name="role" label={t('admin.admins.role')} extra={t('admin.admins.roleHint')}>
        <Select data-testid="admin-new-role" options={ROLES.map((r) => ({ value: r, label: t(`admin.role.${r}`) }))} />
      </Form.Item>
    </FormModal>
  );
}

export default function AdminsPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { admin: me, can } = useAdmin();
  const confirm = useConfirm('primary');
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [roleChoice, setRoleChoice] = useState<Record<string, Role>>({});
  const list = useUrlList(['q', 'role', 'status'] as const);
  const f = list.filters;
  const allowed = can('admins.manage');
  const q = useCursorPages({
    list: 'admin.admins',
    queryKey: aqk.admins.list({ ...list.page, ...f }),
    page: list.page,
    criteria: f,
    fetch: (query, signal) => adminApi.get<AdminPage>('/v1/admin/admins', query, signal),
    enabled: allowed,
  });
  const invalidate = () => void qc.invalidateQueries({ queryKey: aqk.admins.all });
  const setRole = useMutation({
    mutationFn: (v: { id: string; role: Role; token?: string }) =>
      adminApi.post<AdminInfo>(`/v1/admin/admins/${seg(v.id)}/role`, { role: v.role }, v.token ? stepUpHeader(v.token) : undefined),
    onSuccess: invalidate,
    onSettled: (_d, _e, v) => setRoleChoice((c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== v.id))),
  });
  const toggle = useMutation({
    mutationFn: (v: { id: string; enable: boolean }) =>
      adminApi.post<AdminInfo>(`/v1/admin/admins/${seg(v.id)}/${v.enable ? 'enable' : 'disable'}`),
    onSuccess: invalidate,
  });

  if (!allowed) {
    return <Result status="403" title={t('admin.admins.ownerOnly')} subTitle={t('admin.admins.ownerOnlyText')} />;
  }

  const changeRole = (a: AdminInfo, role: Role) => {
    if (role === a.role) return;
    setRoleChoice((c) => ({ ...c, [a.id]: role }));
    if (role === 'owner') {
      setPending({ kind: 'role', admin: a });
      return;
    }
    confirm({
      title: t('admin.admins.roleTitle', { username: a.username, role: t(`admin.role.${role}`) }),
      content: t('admin.admins.roleText'),
      okText: t('admin.admins.changeRole'),
      onOk: () => setRole.mutateAsync({ id: a.id, role }).catch(() => undefined),
      onCancel: () => setRoleChoice((c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== a.id))),
    });
  };

  const columns: ColumnsType<AdminInfo> = [
    {
      title: t('admin.signin.username'),
      dataIndex: 'username',
      render: (v: string, r) => (
        <Space>
          <strong>{v}</strong>
          {r.id === me.id ? <Tag color="blue">{t('admin.admins.you')}</Tag> : null}
        </Space>
      ),
    },
    {
      title: t('admin.admins.role'),
      dataIndex: 'role',
      render: (v: Role, r) => (
        <Select<Role>
          data-testid="admin-role"
          size="small"
          style={{ minWidth: 130 }}
          value={roleChoice[r.id] ?? v}
          aria-label={t('admin.admins.role')}
          onChange={(role) => changeRole(r, role)}
          options={ROLES.map((x) => ({ value: x, label: t(`admin.role.${x}`) }))}
        />
      ),
    },
    {
      title: t('admin.admins.status'),
      dataIndex: 'status',
      render: (v: string) => (
        <Tag color={v === 'active' ? 'green' : 'red'} data-status={v}>
          {t(`admin.admins.status.${v}`)}
        </Tag>
      ),
    },
    { responsive: ['md'], title: t('admin.admins.created'), dataIndex: 'created_at', render: (v: string) => fmt.dateTime(v) },
    { responsive: ['md'], title: t('admin.admins.lastLogin'), dataIndex: 'last_login_at', render: (v?: string) => (v ? fmt.dateTime(v) : t('common.never')) },
    {
      title: t('common.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_: unknown, r) =>
        r.status === 'active' ? (
          <Button
            size="small"
            danger
            data-testid="admin-disable"
            onClick={() =>
              confirm({
                title: t('admin.admins.disableTitle', { username: r.username }),
                content: t('admin.admins.disableText'),
                okText: t('admin.admins.disable'),
                // A refusal (409 last_owner) is shown as a toast and closes the dialog.
                onOk: () => toggle.mutateAsync({ id: r.id, enable: false }).catch(() => undefined),
              })
            }
          >
            {t('admin.admins.disable')}
          </Button>
        ) : (
          <Button size="small" data-testid="admin-enable" loading={toggle.isPending} onClick={() => toggle.mutate({ id: r.id, enable: true })}>
            {t('admin.admins.enable')}
          </Button>
        ),
    },
  ];

  const pendingTitle =
    pending?.kind === 'create'
      ? t('admin.admins.grantOwnerCreate', { username: pending.body.username })
      : pending
        ? t('admin.admins.grantOwner', { username: pending.admin.username })
        : '';

  return (
    <>
      <PageHeader
        title={t('admin.nav.admins')}
        extra={
          <Button type="primary" data-testid="admin-create" onClick={() => setCreating(true)}>
            {t('admin.admins.create')}
          </Button>
        }
      />
      <Typography.Paragraph type="secondary">{t('admin.admins.lead')}</Typography.Paragraph>
      <Flex gap={8} wrap="wrap" style={{ marginBottom: 12 }}>
        <Input.Search
          data-testid="admins-search"
          allowClear
          placeholder={t('admin.admins.search')}
          style={{ maxWidth: 280 }}
          defaultValue={f.q}
          onSearch={(v) => list.setFilter('q', v.trim())}
        />
        <Select
          data-testid="admins-role-filter"
          allowClear
          placeholder={t('admin.admins.allRoles')}
          style={{ minWidth: 150 }}
          value={f.role}
          onChange={(v?: string) => list.setFilter('role', v)}
          options={ROLES.map((r) => ({ value: r, label: t(`admin.role.${r}`) }))}
        />
        <Select
          data-testid="admins-status-filter"
          allowClear
          placeholder={t('admin.admins.allStatuses')}
          style={{ minWidth: 150 }}
          value={f.status}
          onChange={(v?: string) => list.setFilter('status', v)}
          options={(['active', 'disabled'] as const).map((s) => ({ value: s, label: t(`admin.admins.status.${s}`) }))}
        />
      </Flex>
      <QueryTable<AdminInfo>
        query={q}
        testid="admins-table"
        columns={columns}
        onRow={(r) => ({ ...rowProps('admins', r.id), 'data-username': r.username } as ReturnType<typeof rowProps>)}
        pagination={list.pagination(q.data?.total)}
      />
      <CreateDialog
        open={creating}
        onClose={() => setCreating(false)}
        onNeedsStepUp={(body) => {
          setCreating(false);
          setPending({ kind: 'create', body });
        }}
      />
      <StepUpDialog
        open={pending !== null}
        title={pendingTitle}
        onCancel={() => {
          if (pending?.kind === 'role') setRoleChoice((c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== pending.admin.id)));
          setPending(null);
        }}
        onConfirmed={async (token) => {
          if (!pending) return;
          if (pending.kind === 'create') {
            await adminApi.post<AdminInfo>('/v1/admin/admins', pending.body, stepUpHeader(token));
            invalidate();
          } else {
            await setRole.mutateAsync({ id: pending.admin.id, role: 'owner', token });
          }
          setPending(null);
        }}
      >
        <Typography.Paragraph>{t('admin.admins.grantOwnerText')}</Typography.Paragraph>
      </StepUpDialog>
    </>
  );
}
