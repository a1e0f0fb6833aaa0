// System information read from the agent on demand (each read is charged).
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Descriptions, Empty, List, Progress, Tag, Tooltip, Typography } from 'antd';
import type { SystemInfo } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';
import { useRefreshSysinfo, useSysinfoCache } from './hooks';

export function SysInfoPanel({ hostId, online }: { hostId: string; online: boolean }) {
  const { t } = useI18n();
  const cached = useSysinfoCache(hostId);
  const refresh = useRefreshSysinfo(hostId);
  const info = cached.data ?? null;

  const button = (
    <Button
      icon={<ReloadOutlined />}
      data-testid="sysinfo-refresh"
      loading={refresh.isPending}
      disabled={!online}
      onClick={() => refresh.mutate()}
    >
      {info ? t('host.sysinfo.refresh') : t('host.sysinfo.read')}
    </Button>
  );

  return (
    <Card
      title={t('host.sysinfo.title')}
      extra={online ? button : <Tooltip title={t('host.sysinfo.offline')}>{<span>{button}</span>}</Tooltip>}
    >
      <div data-testid="sysinfo-panel">
        <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
          {online ? t('host.sysinfo.charged') : t('host.sysinfo.offline')}
        </Typography.Paragraph>
        <FormError error={refresh.error} />
        {info ? (
          <SysInfoView info={info} />
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('host.sysinfo.empty')} />
        )}
      </div>
    </Card>
  );
}

function SysInfoView({ info }: { info: SystemInfo }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const memUsed = info.mem_total_bytes - info.mem_available_bytes;
  const memPct = info.mem_total_bytes > 0 ? (memUsed / info.mem_total_bytes) * 100 : 0;
  const platform = [info.platform, info.platform_version].filter(Boolean).join(' ');
  return (
    <>
      <Descriptions size="small" column={{ xs: 1, sm: 2, md: 2, lg: 2, xl: 1, xxl: 2 }} bordered>
        <Descriptions.Item label={t('host.sysinfo.hostname')}>{info.hostname || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.os')}>
          {[info.os, info.arch].filter(Boolean).join(' / ') || '—'}
        </Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.platform')}>{platform || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.kernel')}>{info.kernel_version || '—'}</Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.cpu')}>
          {info.cpu_model || '—'}
          <br />
          <Typography.Text type="secondary">
            {t('host.sysinfo.cores', { cores: info.cpu_cores, threads: info.cpu_threads })}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.memory')}>
          {t('host.sysinfo.usedOf', { used: fmt.bytes(memUsed), total: fmt.bytes(info.mem_total_bytes) })}
          <Progress percent={Math.round(memPct)} size="small" showInfo={false} />
        </Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.uptime')}>
          {fmt.duration(info.uptime_s)}
          <br />
          <Typography.Text type="secondary">
            {t('host.sysinfo.bootedAt', { time: fmt.dateTime(info.boot_time) })}
          </Typography.Text>
        </Descriptions.Item>
        <Descriptions.Item label={t('host.sysinfo.agent')}>{info.agent_version || '—'}</Descriptions.Item>
      </Descriptions>

      <Typography.Title level={5} style={{ marginTop: 16 }}>
        {t('host.sysinfo.disks')}
      </Typography.Title>
      <List
        size="small"
        bordered
        dataSource={info.disks ?? []}
        locale={{ emptyText: t('host.sysinfo.none') }}
        renderItem={(d) => {
          const used = d.total_bytes - d.free_bytes;
          return (
            <List.Item>
              <div style={{ width: '100%' }}>
                <Typography.Text code>{d.path}</Typography.Text>{' '}
                <Typography.Text type="secondary">{d.fstype}</Typography.Text>
                <div>
                  {t('host.sysinfo.usedOf', { used: fmt.bytes(used), total: fmt.bytes(d.total_bytes) })} ·{' '}
                  {fmt.percent(d.used_pct)}
                </div>
                <Progress
                  percent={Math.round(d.used_pct)}
                  size="small"
                  showInfo={false}
                  status={d.used_pct >= 90 ? 'exception' : 'normal'}
                />
              </div>
            </List.Item>
          );
        }}
      />

      <Typography.Title level={5} style={{ marginTop: 16 }}>
        {t('host.sysinfo.interfaces')}
      </Typography.Title>
      <List
        size="small"
        bordered
        dataSource={info.interfaces ?? []}
        locale={{ emptyText: t('host.sysinfo.none') }}
        renderItem={(n) => (
          <List.Item>
            <div style={{ minWidth: 0 }}>
              <Typography.Text strong>{n.name}</Typography.Text>{' '}
              <Tag color={n.up ? 'green' : 'default'}>{n.up ? t('host.sysinfo.up') : t('host.sysinfo.down')}</Tag>
              {n.mac ? <Typography.Text type="secondary">{n.mac}</Typography.Text> : null}
              <div style={{ wordBreak: 'break-all' }}>{(n.addrs ?? []).join(', ') || '—'}</div>
            </div>
          </List.Item>
        )}
      />
    </>
  );
}
