// /admin/hosts/:id: one host as the operators see it — live connection and
// status (polled), owner, flapping over the last hour, agent version and
// upgrade state, the user console's metrics chart on the admin route, the
// event history; push-upgrade, ban/unban, delete and the terminal for the
// roles that may use them (the others do not see the controls).
import { ArrowLeftOutlined, CloudUploadOutlined, CodeOutlined, DeleteOutlined, StopOutlined, UndoOutlined } from '@ant-design/icons';
import { App, Alert, Badge, Button, Card, Descriptions, Empty, Flex, Modal, Select, Skeleton, Table, Tag, Typography } from 'antd';
import { useMemo, useState, type HTMLAttributes } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, errorMessage, seg } from '../../api';
import { useAdmin } from '../../session';
import { MetricsChart } from '../../../features/host/MetricsChart';
import { useFormat, useI18n } from '../../../i18n';
import { ErrorState } from '../../../ui/ErrorState';
import { FormError } from '../../../ui/FormError';
import { PageHeader } from '../../../ui/PageHeader';
import { flapLevel, FLAP_HIGH } from './flaps';
import {
  adminMetricsSource,
  useAdminHost,
  useBanHost,
  useDeleteAdminHost,
  useHostEvents,
  usePublishedVersions,
  usePushUpgrade,
  useUnbanHost,
} from './hooks';
import { STATUS_COLOR, statusLabel } from './status';
import type { AdminHostDetail, HostEvent } from './types';

const EVENTS_LIMIT = 50;

const UPGRADE_COLOR: Record<string, string> = {
  requested: 'blue',
  downloading: 'blue',
  verifying: 'blue',
  restarting: 'blue',
  done: 'green',
  failed: 'red',
  rolled_back: 'orange',
};

export default function HostPage() {
  const { id = '' } = useParams();
  return <HostView key={id} id={id} />;
}

function HostView({ id }: { id: string }) {
  const { t } = useI18n();
  const q = useAdminHost(id);
  if (q.isPending) {
    return (
      <>
        <Skeleton active title paragraph={{ rows: 1 }} />
        <Card>
          <Skeleton active paragraph={{ rows: 6 }} />
        </Card>
      </>
    );
  }
  if (q.isError && !q.data) {
    const gone = q.error instanceof ApiError && q.error.status === 404;
    return (
      <>
        <BackLink />
        {gone ? (
          <Empty description={t('adminHosts.notFound')} />
        ) : (
          <ErrorState error={q.error} onRetry={() => void q.refetch()} />
        )}
      </>
    );
  }
  return <HostLoaded id={id} d={q.data} stale={q.isError ? errorMessage(q.error) : undefined} />;
}

function BackLink() {
  const { t } = useI18n();
  return (
    <Link to="/admin/hosts" className="hg-back" style={{ display: 'inline-block', marginBottom: 8 }}>
      <ArrowLeftOutlined /> {t('adminHosts.back')}
    </Link>
  );
}

function HostLoaded({ id, d, stale }: { id: string; d: AdminHostDetail; stale?: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const { can } = useAdmin();
  const { modal } = App.useApp();
  const navigate = useNavigate();
  const ban = useBanHost(id);
  const unban = useUnbanHost(id);
  const del = useDeleteAdminHost(id);
  const [upgrading, setUpgrading] = useState(false);
  const source = useMemo(() => adminMetricsSource(id), [id]);
  const h = d.host;
  const banned = h.status === 'banned';
  const write = can('hosts.write');

  const confirm = (title: string, content: string, okText: string, danger: boolean, run: () => Promise<unknown>) =>
    modal.confirm({
      title,
      content,
      okText,
      cancelText: t('common.cancel'),
      okButtonProps: { danger, ...({ 'data-testid': 'confirm-ok' } as object) },
      autoFocusButton: 'cancel',
      onOk: () => run(),
    });

  const actions = [
    can('terminal') ? (
      <Button
        key="term"
        icon={<CodeOutlined />}
        href={`/admin/hosts/${seg(id)}/terminal`}
        disabled={!d.online}
        title={d.online ? undefined : t('adminHosts.terminalOffline')}
        data-testid="host-open-terminal"
        onClick={(e) => {
          e.preventDefault();
          void navigate(`/admin/hosts/${seg(id)}/terminal`);
        }}
      >
        {t('adminHosts.openTerminal')}
      </Button>
    ) : null,
    write ? (
      <Button key="up" icon={<CloudUploadOutlined />} data-testid="host-push-upgrade" onClick={() => setUpgrading(true)}>
        {t('adminHosts.pushUpgrade')}
      </Button>
    ) : null,
    write && !banned ? (
      <Button
        key="ban"
        danger
        icon={<StopOutlined />}
        data-testid="host-ban"
        onClick={() =>
          confirm(t('adminHosts.banTitle', { name: h.name }), t('adminHosts.banBody'), t('adminHosts.ban'), true, () =>
            ban.mutateAsync(),
          )
        }
      >
        {t('adminHosts.ban')}
      </Button>
    ) : null,
    write && banned ? (
      <Button
        key="unban"
        icon={<UndoOutlined />}
        data-testid="host-unban"
        onClick={() =>
          confirm(t('adminHosts.unbanTitle', { name: h.name }), t('adminHosts.unbanBody'), t('adminHosts.unban'), false, () =>
            unban.mutateAsync(),
          )
        }
      >
        {t('adminHosts.unban')}
      </Button>
    ) : null,
    write ? (
      <Button
        key="del"
        danger
        icon={<DeleteOutlined />}
        data-testid="host-delete"
        onClick={() =>
          confirm(t('adminHosts.deleteTitle', { name: h.name }), t('adminHosts.deleteBody'), t('common.delete'), true, async () => {
            await del.mutateAsync();
            void navigate('/admin/hosts', { replace: true });
          })
        }
      >
        {t('common.delete')}
      </Button>
    ) : null,
  ].filter(Boolean);

  const level = flapLevel(d.flaps_1h);
  const up = d.upgrade;

  return (
    <>
      <BackLink />
      <PageHeader title={h.name} extra={actions.length ? actions : undefined} />
      {stale ? <Alert type="warning" showIcon style={{ marginBottom: 12 }} message={stale} /> : null}
      <Flex vertical gap={16}>
        <Card title={t('adminHosts.facts')}>
          <Descriptions column={{ xs: 1, sm: 1, md: 2, lg: 2, xl: 2, xxl: 3 }} size="small" className="hg-host-facts">
            <Descriptions.Item label={t('adminHosts.col.connection')}>
              <span data-testid="host-status" data-online={String(d.online)} data-status={h.status}>
                <Badge
                  status={d.online ? 'success' : 'default'}
                  text={d.online ? t('adminHosts.connected') : t('adminHosts.disconnected')}
                />{' '}
                <Tag color={STATUS_COLOR[h.status] ?? 'default'}>{statusLabel(t, h.status)}</Tag>
              </span>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.col.owner')}>
              {d.owner ? (
                <Link to={`/admin/users/${seg(d.owner.id)}`} data-testid="host-owner">
                  {d.owner.email}
                </Link>
              ) : (
                <Link to={`/admin/users/${seg(h.user_id)}`} data-testid="host-owner">
                  {h.user_id}
                </Link>
              )}
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.flaps')}>
              <span
                data-testid="host-flaps"
                data-level={level}
                data-connects={d.flaps_1h?.connects ?? ''}
                data-disconnects={d.flaps_1h?.disconnects ?? ''}
              >
                {d.flaps_1h ? (
                  <Flex gap={6} wrap="wrap" align="center">
                    <Tag color={level === 'high' ? 'red' : level === 'some' ? 'orange' : 'default'} style={{ whiteSpace: 'normal', marginInlineEnd: 0 }}>
                      {t('adminHosts.flapsCount', {
                        connects: fmt.number(d.flaps_1h.connects),
                        disconnects: fmt.number(d.flaps_1h.disconnects),
                      })}
                    </Tag>
                    {level === 'high' ? (
                      <Typography.Text type="danger">{t('adminHosts.flapping', { n: FLAP_HIGH })}</Typography.Text>
                    ) : null}
                  </Flex>
                ) : (
                  '—'
                )}
              </span>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.col.version')}>
              <span data-testid="host-agent-version">{h.installed_version || '—'}</span>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.upgrade')}>
              <span data-testid="host-upgrade-state" data-state={up?.state ?? ''} data-version={up?.version ?? ''}>
                {up ? (
                  <Flex gap={6} wrap="wrap" align="center">
                    <Tag color={UPGRADE_COLOR[up.state] ?? 'default'}>{t(`adminHosts.upgradeState.${up.state}`)}</Tag>
                    <Typography.Text>
                      {t('adminHosts.upgradeTo', { version: up.version, at: fmt.dateTime(up.updated_at) })}
                    </Typography.Text>
                    {up.reason ? <Typography.Text type="secondary">{up.reason}</Typography.Text> : null}
                  </Flex>
                ) : (
                  t('adminHosts.noUpgrade')
                )}
              </span>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.col.os')}>{h.os || '—'}</Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.col.ip')}>{h.public_ip || '—'}</Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.hostId')}>
              <Typography.Text copyable code style={{ wordBreak: 'break-all' }}>
                {h.id}
              </Typography.Text>
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.col.lastSeen')}>
              {h.last_seen_at ? fmt.dateTime(h.last_seen_at) : t('adminHosts.never')}
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.lastOnline')}>
              {h.last_online_at ? fmt.dateTime(h.last_online_at) : t('adminHosts.never')}
            </Descriptions.Item>
            <Descriptions.Item label={t('adminHosts.col.created')}>{fmt.dateTime(h.created_at)}</Descriptions.Item>
          </Descriptions>
        </Card>
        <MetricsChart hostId={id} source={source} />
        <EventsCard id={id} />
      </Flex>
      {write ? <PushUpgradeDialog id={id} current={h.installed_version} open={upgrading} onClose={() => setUpgrading(false)} /> : null}
    </>
  );
}

function EventsCard({ id }: { id: string }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const q = useHostEvents(id, EVENTS_LIMIT);
  const items = q.data?.items ?? [];
  return (
    <Card title={t('adminHosts.events')}>
      {q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <div data-testid="host-events">
          <Table<HostEvent>
            rowKey="id"
            size="small"
            loading={q.isPending}
            dataSource={items}
            pagination={false}
            scroll={{ x: 'max-content' }}
            onRow={(r) => ({ 'data-testid': 'host-event-row', 'data-kind': r.kind }) as HTMLAttributes<HTMLElement>}
            locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('adminHosts.noEvents')} /> }}
            columns={[
              { title: t('adminHosts.eventAt'), dataIndex: 'at', key: 'at', render: (v: string) => fmt.dateTime(v) },
              {
                title: t('adminHosts.eventKind'),
                dataIndex: 'kind',
                key: 'kind',
                render: (k: string) => {
                  const v = eventView(t, k);
                  return <Tag color={v.color}>{v.label}</Tag>;
                },
              },
              { title: t('adminHosts.eventMessage'), dataIndex: 'message', key: 'message', render: (v: string) => v || '—' },
            ]}
          />
        </div>
      )}
    </Card>
  );
}

const SIMPLE_EVENTS: Record<string, string> = {
  connected: 'green',
  disconnected: 'orange',
  enrolled: 'blue',
  installer: 'blue',
  'host.ban': 'red',
  'host.unban': 'default',
};

/** An event kind's words and colour: the hub's kinds (docs/hosts.md), upgrade.<state> included; others as they are. */
function eventView(t: (k: string, v?: Record<string, string>) => string, k: string): { label: string; color: string } {
  if (k in SIMPLE_EVENTS) return { label: t(`adminHosts.event.${k.replace('.', '_')}`), color: SIMPLE_EVENTS[k] ?? 'default' };
  const state = k.startsWith('upgrade.') ? k.slice('upgrade.'.length) : '';
  if (state in UPGRADE_COLOR) {
    return { label: t('adminHosts.event.upgrade', { state: t(`adminHosts.upgradeState.${state}`) }), color: UPGRADE_COLOR[state] ?? 'default' };
  }
  return { label: k, color: 'default' };
}

function PushUpgradeDialog({ id, current, open, onClose }: { id: string; current?: string; open: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const versions = usePublishedVersions(open);
  const push = usePushUpgrade(id);
  const [version, setVersion] = useState<string | undefined>();
  const { message } = App.useApp();
  const close = () => {
    push.reset();
    setVersion(undefined);
    onClose();
  };
  return (
    <Modal
      open={open}
      title={t('adminHosts.pushTitle')}
      onCancel={close}
      okText={t('adminHosts.pushOk')}
      cancelText={t('common.cancel')}
      okButtonProps={{ disabled: !version, loading: push.isPending, ...({ 'data-testid': 'host-upgrade-submit' } as object) }}
      onOk={() => {
        if (!version) return;
        push.mutate(version, {
          onSuccess: () => {
            void message.success(t('adminHosts.pushSent', { version }));
            close();
          },
        });
      }}
      destroyOnHidden
    >
      <Flex vertical gap={12}>
        <Typography.Text type="secondary">
          {t('adminHosts.pushHint', { version: current || '—' })}
        </Typography.Text>
        <Select<string>
          data-testid="host-upgrade-version"
          aria-label={t('adminHosts.pushVersion')}
          placeholder={t('adminHosts.pushVersion')}
          loading={versions.isPending}
          value={version}
          onChange={setVersion}
          style={{ width: '100%' }}
          notFoundContent={versions.isError ? errorMessage(versions.error) : t('adminHosts.noVersions')}
          options={(versions.data ?? []).map((v) => ({
            value: v.version,
            label: `${v.version} · ${t(`adminHosts.channel.${v.channel}`)} · ${fmt.date(v.released_at)}`,
          }))}
        />
        <FormError error={push.error} />
      </Flex>
    </Modal>
  );
}
