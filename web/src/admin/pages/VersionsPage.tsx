// Agent versions: filter by channel, show yanked ones, how many hosts run
// each; publish (URL, SHA-256, size, changelog, minimum protocol) and yank
// (confirmed) for the roles that manage versions.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Form, Input, Select, Switch, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { Link } from 'react-router';
import { useFormat, useI18n } from '../../i18n';
import { useCursorPages } from '../../lib/useCursorPages';
import { PageHeader } from '../../ui/PageHeader';
import { useConfirm } from '../../ui/useConfirm';
import { adminApi, seg } from '../api';
import { useUrlList } from '../lib/list';
import { intProblem, rule, sha256Problem, urlProblem, versionProblem } from '../lib/validate';
import { aqk } from '../queryKeys';
import { useAdmin } from '../session';
import type { PublishVersion, Version, VersionChannel, VersionPage } from '../types';
import { QueryTable } from '../ui/QueryTable';
import { FormModal } from '../ui/FormModal';
import { rowProps } from '../ui/rows';

const CHANNELS: readonly NonNullable<VersionChannel>[] = ['stable', 'beta', 'canary'];

interface PublishForm {
  version: string;
  channel: NonNullable<VersionChannel>;
  exe_url: string;
  exe_sha256: string;
  exe_size_bytes: string;
  changelog?: string;
  min_supported_protocol: string;
}

function PublishDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const [form] = Form.useForm<PublishForm>();
  const publish = useMutation({
    mutationFn: (v: PublishForm) => {
      const body: PublishVersion = {
        version: v.version.trim(),
        channel: v.channel,
        exe_url: v.exe_url.trim(),
        exe_sha256: v.exe_sha256.trim().toLowerCase(),
        exe_size_bytes: Number(v.exe_size_bytes),
        changelog: v.changelog?.trim() ?? '',
        min_supported_protocol: Number(v.min_supported_protocol),
      };
      return adminApi.post<Version>('/v1/admin/gateway-versions', body);
    },
    meta: { errorShownInline: true },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: aqk.versions.all });
      onClose();
    },
  });
  return (
    <FormModal<PublishForm>
      open={open}
      title={t('admin.versions.publishTitle')}
      onCancel={onClose}
      okText={t('admin.versions.publish')}
      okTestId="version-publish-submit"
      pending={publish.isPending}
      error={publish.error}
      form={form}
      initialValues={{ channel: 'stable', min_supported_protocol: '1' }}
      onFinish={(v) => publish.mutate(v)}
    >
      <Flex gap={12} wrap="wrap">
        <Form.Item name="version" label={t('admin.versions.version')} rules={[rule(versionProblem, t)]} style={{ flex: '1 1 160px' }}>
          <Input data-testid="version-version" placeholder="1.4.0" autoComplete="off" />
        </Form.Item>
        <Form.Item name="channel" label={t('admin.versions.channel')} style={{ flex: '1 1 140px' }}>
          <Select data-testid="version-channel" options={CHANNELS.map((c) => ({ value: c, label: t(`admin.versions.channel.${c}`) }))} />
        </Form.Item>
      </Flex>
      <Form.Item name="exe_url" label={t('admin.versions.url')} rules={[rule(urlProblem, t)]}>
        <Input data-testid="version-url" placeholder="https://" autoComplete="off" />
      </Form.Item>
      <Form.Item name="exe_sha256" label={t('admin.versions.sha256')} rules={[rule(sha256Problem, t)]}>
        <Input data-testid="version-sha256" autoComplete="off" style={{ fontFamily: 'monospace' }} />
      </Form.Item>
      <Flex gap={12} wrap="wrap">
        <Form.Item
          name="exe_size_bytes"
          label={t('admin.versions.size')}
          rules={[rule((v) => intProblem(v, 1), t)]}
          style={{ flex: '1 1 160px' }}
        >
          <Input data-testid="version-size" inputMode="numeric" autoComplete="off" />
        </Form.Item>
        <Form.Item
          name="min_supported_protocol"
          label={t('admin.versions.minProtocol')}
          rules={[rule((v) => intProblem(v, 1), t)]}
          style={{ flex: '1 1 140px' }}
        >
          <Input data-testid="version-min-protocol" inputMode="numeric" autoComplete="off" />
        </Form.Item>
      </Flex>
      <Form.Item name="changelog" label={t('admin.versions.changelog')}>
        <Input.TextArea data-testid="version-changelog" autoSize={{ minRows: 3 }} maxLength={4000} />
      </Form.Item>
    </FormModal>
  );
}

export default function VersionsPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { can } = useAdmin();
  const confirm = useConfirm('primary');
  const qc = useQueryClient();
  const [publishing, setPublishing] = useState(false);
  const list = useUrlList(['channel', 'yanked'] as const);
  const { channel, yanked } = list.filters;
  const criteria = { channel, include_yanked: yanked === '1' ? true : undefined };
  const q = useCursorPages({
    list: 'admin.versions',
    queryKey: aqk.versions.list({ ...list.page, ...criteria }),
    page: list.page,
    criteria,
    fetch: (query, signal) => adminApi.get<VersionPage>('/v1/admin/gateway-versions', query, signal),
  });
  const yank = useMutation({
    mutationFn: (ver: string) => adminApi.post(`/v1/admin/gateway-versions/${seg(ver)}/yank`),
    onSuccess: () => void qc.invalidateQueries({ queryKey: aqk.versions.all }),
  });
  const writer = can('versions.write');

  const columns: ColumnsType<Version> = [
    { title: t('admin.versions.version'), dataIndex: 'version', render: (v: string) => <strong>{v}</strong> },
    {
      title: t('admin.versions.channel'),
      dataIndex: 'channel',
      render: (v?: string) => (v ? <Tag>{t(`admin.versions.channel.${v}`)}</Tag> : '—'),
    },
    {
      title: t('admin.versions.hosts'),
      dataIndex: 'host_count',
      align: 'right',
      render: (n: number | undefined, r) =>
        n === undefined ? (
          '—'
        ) : (
          <Link to={`/admin/hosts?agent_version=${encodeURIComponent(r.version)}`} data-testid="version-host-count">
            {fmt.number(n)}
          </Link>
        ),
    },
    { responsive: ['md'], title: t('admin.versions.sizeCol'), dataIndex: 'exe_size_bytes', align: 'right', render: (v: number) => fmt.bytes(v) },
    { responsive: ['md'], title: t('admin.versions.minProtocol'), dataIndex: 'min_supported_protocol', align: 'right' },
    { responsive: ['md'], title: t('admin.versions.released'), dataIndex: 'released_at', render: (v: string) => fmt.dateTime(v) },
    {
      title: t('admin.versions.state'),
      dataIndex: 'yanked_at',
      render: (v?: string) =>
        v ? <Tag color="red">{t('admin.versions.yankedAt', { at: fmt.dateTime(v) })}</Tag> : <Tag color="green">{t('admin.versions.live')}</Tag>,
    },
    {
      responsive: ['md'],
      title: t('admin.versions.sha256'),
      dataIndex: 'exe_sha256',
      render: (v: string) => (
        <Typography.Text code copyable={{ text: v }} style={{ fontSize: 12 }}>
          {v.slice(0, 12)}…
        </Typography.Text>
      ),
    },
  ];
  if (writer) {
    columns.push({
      title: t('common.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_: unknown, r) =>
        r.yanked_at ? null : (
          <Button
            size="small"
            danger
            data-testid="version-yank"
            onClick={() =>
              confirm({
                title: t('admin.versions.yankTitle', { version: r.version }),
                content: t('admin.versions.yankText'),
                okText: t('admin.versions.yank'),
                onOk: () => yank.mutateAsync(r.version),
              })
            }
          >
            {t('admin.versions.yank')}
          </Button>
        ),
    });
  }

  return (
    <>
      <PageHeader
        title={t('admin.nav.versions')}
        extra={
          writer ? (
            <Button type="primary" data-testid="version-publish" onClick={() => setPublishing(true)}>
              {t('admin.versions.publish')}
            </Button>
          ) : null
        }
      />
      <Flex gap={12} wrap="wrap" align="center" style={{ marginBottom: 12 }}>
        <Select
          data-testid="versions-channel-filter"
          allowClear
          placeholder={t('admin.versions.allChannels')}
          style={{ minWidth: 180 }}
          value={channel}
          onChange={(v?: string) => list.setFilter('channel', v)}
          options={CHANNELS.map((c) => ({ value: c, label: t(`admin.versions.channel.${c}`) }))}
        />
        <Flex gap={8} align="center">
          <Switch
            id="versions-yanked"
            data-testid="versions-show-yanked"
            checked={yanked === '1'}
            onChange={(on) => list.setFilter('yanked', on ? '1' : undefined)}
          />
          <label htmlFor="versions-yanked">{t('admin.versions.showYanked')}</label>
        </Flex>
      </Flex>
      <QueryTable<Version>
        query={q}
        testid="versions-table"
        columns={columns}
        onRow={(r) => rowProps('versions', r.version)}
        pagination={list.pagination(q.data?.total)}
      />
      <PublishDialog open={publishing} onClose={() => setPublishing(false)} />
    </>
  );
}
