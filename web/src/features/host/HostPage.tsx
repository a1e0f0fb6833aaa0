// The host page (/hosts/:id): live status and details, install credentials,
// system information, metrics, L1 configuration and webhook deliveries.
import {
  ArrowLeftOutlined,
  CloudDownloadOutlined,
  CodeOutlined,
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  KeyOutlined,
  LoadingOutlined,
  PlayCircleOutlined,
  SyncOutlined,
  TagsOutlined,
} from '@ant-design/icons';
import { Alert, App, Badge, Button, Card, Col, Descriptions, Flex, Result, Row, Skeleton, Space, Tag, Tooltip, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate, useParams } from 'react-router';
import { ApiError, errorMessage, seg } from '../../api/client';
import type { Credentials, Host, HostCreated, Upgrade } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { ErrorState } from '../../ui/ErrorState';
import { useConfirm } from '../../ui/useConfirm';
import { CredentialsPanel, type CredentialsSource } from './CredentialsPanel';
import { downloadFrom } from './download';
import { DeliveriesTable } from './DeliveriesTable';
import { EditHostDialog } from './HostDialogs';
import { useDeleteHost, useHost, useReissueInstallToken, useRotateSecret } from './hooks';
import { L1Form } from './L1Form';
import { MetricsChart } from './MetricsChart';
import { ProvisioningDialog } from './ProvisioningDialog';
import { SysInfoPanel } from './SysInfoPanel';
import { tagsOf } from '../../lib/tags';
import { TagList } from '../tags/TagList';
import { EditTagsDialog } from '../tags/EditTagsDialog';
import { newJobHref } from '../jobs/jobs';
import './host.css';

export default function HostPage() {
  const { id = '' } = useParams();
  return <HostView key={id} id={id} />;
}

interface ShownCredentials {
  credentials: Credentials;
  source: CredentialsSource;
}

const STATUS_WORDS = ['pending', 'online', 'stale', 'offline', 'banned'];
const UPGRADE_COLOR: Record<Upgrade['state'], string> = {
  requested: 'blue',
  downloading: 'blue',
  verifying: 'blue',
  restarting: 'blue',
  done: 'green',
  failed: 'red',
  rolled_back: 'orange',
};

function HostView({ id }: { id: string }) {
  const { t } = useI18n();
  const location = useLocation();
  const navigate = useNavigate();
  const q = useHost(id);

  // The create answer handed over by the hosts list, credentials included
  // (with_credentials): shown once, then the history entry forgets it so a
  // reload does not show it again.
  const created = (location.state as { created?: HostCreated } | null)?.created;
  const [shown, setShown] = useState<ShownCredentials | null>(() =>
    created?.credentials ? { credentials: created.credentials, source: 'created' } : null,
  );
  useEffect(() => {
    if (created) void navigate(location.pathname, { replace: true, state: null });
  }, [created, location.pathname, navigate]);

  if (q.isPending) return <HostSkeleton />;
  if (q.isError && !q.data) {
    if (q.error instanceof ApiError && q.error.status === 404) {
      return (
        <Result
          status="404"
          title={t('host.notFound.title')}
          subTitle={t('host.notFound.text')}
          extra={
            <Link to="/hosts">
              <ArrowLeftOutlined /> {t('host.back')}
            </Link>
          }
        />
      );
    }
    return <ErrorState error={q.error} onRetry={() => void q.refetch()} />;
  }

  const { host, online, upgrade } = q.data;
  return (
    <>
      <Link to="/hosts" className="hg-back">
        <ArrowLeftOutlined /> {t('host.back')}
      </Link>
      <HostHeader host={host} online={online} upgrade={upgrade} />
      {q.isError ? (
        <Alert type="warning" showIcon style={{ marginBottom: 16 }} message={errorMessage(q.error)} />
      ) : null}
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={12}>
          <Flex vertical gap={16}>
            <InstallCard host={host} shown={shown} setShown={setShown} />
            <L1Form host={host} />
          </Flex>
        </Col>
        <Col xs={24} xl={12}>
          <Flex vertical gap={16}>
            <SysInfoPanel hostId={host.id} online={online} />
            <MetricsChart hostId={host.id} />
          </Flex>
        </Col>
        <Col xs={24}>
          <DeliveriesTable hostId={host.id} />
        </Col>
      </Row>
    </>
  );
}

function statusWord(host: Host, online: boolean): string {
  if (online) return 'online';
  if (host.status === 'online') return 'offline';
  return STATUS_WORDS.includes(host.status) ? host.status : 'offline';
}

function HostHeader({ host, online, upgrade }: { host: Host; online: boolean; upgrade?: Upgrade }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const navigate = useNavigate();
  const confirm = useConfirm();
  const del = useDeleteHost(host.id);
  const [editing, setEditing] = useState(false);
  const [tagging, setTagging] = useState(false);
  const word = statusWord(host, online);
  const terminalPath = `/hosts/${seg(host.id)}/terminal`;

  const openTerminal = (
    <Button
      type="primary"
      icon={<CodeOutlined />}
      href={online ? terminalPath : undefined}
      disabled={!online}
      data-testid="open-terminal"
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        void navigate(terminalPath);
      }}
    >
      {t('host.openTerminal')}
    </Button>
  );

  return (
    <>
      <Flex justify="space-between" align="center" wrap="wrap" gap={12} style={{ marginBottom: 16 }}>
        <Flex align="center" gap={12} wrap="wrap" style={{ minWidth: 0 }}>
          <Typography.Title level={3} style={{ margin: 0, wordBreak: 'break-word' }} data-testid="host-name-title">
            {host.name}
          </Typography.Title>
          <span data-testid="host-status" data-online={String(online)} role="status" aria-live="polite">
            <Badge status={online ? 'success' : word === 'banned' ? 'error' : 'default'} text={t(`host.status.${word}`)} />
          </span>
        </Flex>
        <Flex gap={8} wrap="wrap">
          {online ? openTerminal : <Tooltip title={t('host.terminalOffline')}><span>{openTerminal}</span></Tooltip>}
          <Button icon={<PlayCircleOutlined />} data-testid="host-run-job" onClick={() => void navigate(newJobHref({ hostIds: [host.id] }))}>
            {t('host.runJob')}
          </Button>
          <Button icon={<EditOutlined />} data-testid="host-rename" onClick={() => setEditing(true)}>
            {t('host.edit.button')}
          </Button>
          <Button
            danger
            icon={<DeleteOutlined />}
            data-testid="host-delete"
            onClick={() =>
              confirm({
                title: t('host.delete.title', { name: host.name }),
                content: t('host.delete.content'),
                onOk: () => del.mutateAsync().then(() => navigate('/hosts', { replace: true })),
              })
            }
          >
            {t('common.delete')}
          </Button>
        </Flex>
      </Flex>
      {!online ? (
        <Typography.Paragraph type="secondary" style={{ marginTop: -8 }}>
          {host.status === 'pending' ? t('host.notInstalled') : t('host.terminalOffline')}
        </Typography.Paragraph>
      ) : null}
      <Card style={{ marginBottom: 16 }} styles={{ body: { padding: 0 } }}>
        <Descriptions
          size="small"
          bordered
          column={{ xs: 1, sm: 2, lg: 3, xl: 4 }}
          className="hg-host-facts"
        >
          <Descriptions.Item label={t('host.fact.lastSeen')}>
            {host.last_seen_at ? fmt.dateTime(host.last_seen_at) : t('common.never')}
          </Descriptions.Item>
          <Descriptions.Item label={t('host.fact.version')}>
            <Space size={4} wrap>
              {host.installed_version || '—'}
              {upgrade ? (
                <Tooltip title={upgrade.reason || t('host.upgrade.at', { time: fmt.dateTime(upgrade.updated_at) })}>
                  <Tag color={UPGRADE_COLOR[upgrade.state] ?? 'default'} icon={upgrade.state === 'done' || upgrade.state === 'failed' || upgrade.state === 'rolled_back' ? undefined : <SyncOutlined spin />}>
                    {t(`host.upgrade.${upgrade.state}`, { version: upgrade.version })}
                  </Tag>
                </Tooltip>
              ) : null}
            </Space>
          </Descriptions.Item>
          <Descriptions.Item label={t('host.fact.os')}>{host.os || '—'}</Descriptions.Item>
          <Descriptions.Item label={t('host.fact.ip')}>{host.public_ip || '—'}</Descriptions.Item>
          <Descriptions.Item label={t('host.fact.listenPort')}>{host.listen_port || '—'}</Descriptions.Item>
          <Descriptions.Item label={t('host.fact.created')}>{fmt.dateTime(host.created_at)}</Descriptions.Item>
          <Descriptions.Item label={t('host.fact.lastOnline')}>
            {host.last_online_at ? fmt.dateTime(host.last_online_at) : t('common.never')}
          </Descriptions.Item>
          <Descriptions.Item label={t('host.fact.tags')} span={2}>
            <Flex gap={8} align="center" wrap="wrap">
              <TagList tags={tagsOf(host)} max={12} />
              <Button size="small" type="link" icon={<TagsOutlined />} data-testid="host-edit-tags" onClick={() => setTagging(true)}>
                {t('tags.edit')}
              </Button>
            </Flex>
          </Descriptions.Item>
          <Descriptions.Item label={t('host.fact.id')}>
            <Typography.Text
              copyable={{ text: host.id, tooltips: [t('common.copy'), t('common.copied')] }}
              style={{ wordBreak: 'break-all', fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', fontSize: 12 }}
            >
              {host.id}
            </Typography.Text>
          </Descriptions.Item>
        </Descriptions>
      </Card>
      <EditHostDialog host={host} open={editing} onClose={() => setEditing(false)} />
      {tagging && <EditTagsDialog host={{ id: host.id, name: host.name, tags: tagsOf(host) }} onClose={() => setTagging(false)} />}
    </>
  );
}

function InstallCard({
  host,
  shown,
  setShown,
}: {
  host: Host;
  shown: ShownCredentials | null;
  setShown: (s: ShownCredentials | null) => void;
}) {
  const { t } = useI18n();
  const confirm = useConfirm();
  const reissue = useReissueInstallToken(host.id);
  const rotate = useRotateSecret(host.id);
  const { message } = App.useApp();
  const [downloading, setDownloading] = useState(false);
  const [provisioning, setProvisioning] = useState(false);
  const installerPath = `/v1/user/hosts/${seg(host.id)}/installer`;

  return (
    <Flex vertical gap={16}>
      {shown ? (
        <CredentialsPanel credentials={shown.credentials} source={shown.source} onDismiss={() => setShown(null)} />
      ) : null}
      <Card title={t('host.install.title')}>
        {!shown ? (
          <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
            {t('host.install.noCreds')}
          </Typography.Paragraph>
        ) : null}
        <Flex gap={8} wrap="wrap" style={{ marginBottom: 12 }}>
          <Button
            icon={<KeyOutlined />}
            data-testid="install-token-reissue"
            loading={reissue.isPending}
            onClick={() =>
              confirm({
                title: t('host.install.reissueTitle'),
                content: t('host.install.reissueContent'),
                okText: t('host.install.reissueOk'),
                onOk: () => reissue.mutateAsync().then((r) => setShown({ credentials: r.credentials, source: 'reissued' })),
              })
            }
          >
            {t('host.install.reissue')}
          </Button>
          <Button icon={<CloudDownloadOutlined />} data-testid="provisioning-payload" onClick={() => setProvisioning(true)}>
            {t('host.install.provisioning')}
          </Button>
          <Button
            danger
            icon={<SyncOutlined />}
            data-testid="rotate-secret"
            loading={rotate.isPending}
            onClick={() =>
              confirm({
                title: t('host.install.rotateTitle'),
                content: t('host.install.rotateContent'),
                okText: t('host.install.rotateOk'),
                onOk: () => rotate.mutateAsync().then((r) => setShown({ credentials: r.credentials, source: 'rotated' })),
              })
            }
          >
            {t('host.install.rotate')}
          </Button>
        </Flex>
        <Typography.Paragraph style={{ marginBottom: 4 }}>
          <a
            href={installerPath}
            download={`install-${host.id}.ps1`}
            data-testid="installer-download"
            aria-busy={downloading}
            onClick={(e) => {
              if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
              e.preventDefault();
              if (downloading) return;
              setDownloading(true);
              downloadFrom(installerPath, `install-${host.id}.ps1`)
                .catch((err: unknown) => void message.error(errorMessage(err), 6))
                .finally(() => setDownloading(false));
            }}
          >
            {downloading ? <LoadingOutlined /> : <DownloadOutlined />} {t('host.install.installer')}
          </a>
        </Typography.Paragraph>
        <Typography.Text type="secondary">{t('host.install.installerHint')}</Typography.Text>
      </Card>
      <ProvisioningDialog hostId={host.id} open={provisioning} onClose={() => setProvisioning(false)} />
    </Flex>
  );
}

function HostSkeleton() {
  return (
    <div aria-busy="true">
      <Skeleton.Input active size="small" style={{ width: 120, marginBottom: 12 }} />
      <Flex justify="space-between" align="center" wrap="wrap" gap={12} style={{ marginBottom: 16 }}>
        <Skeleton.Input active style={{ width: 260, height: 38 }} />
        <Flex gap={8}>
          <Skeleton.Button active />
          <Skeleton.Button active />
          <Skeleton.Button active />
        </Flex>
      </Flex>
      <Card style={{ marginBottom: 16 }}>
        <Skeleton active title={false} paragraph={{ rows: 2 }} />
      </Card>
      <Row gutter={[16, 16]}>
        {[0, 1].map((i) => (
          <Col xs={24} xl={12} key={i}>
            <Flex vertical gap={16}>
              <Card>
                <Skeleton active paragraph={{ rows: 4 }} />
              </Card>
              <Card>
                <Skeleton active paragraph={{ rows: 6 }} />
              </Card>
            </Flex>
          </Col>
        ))}
      </Row>
    </div>
  );
}
