// The dashboard: live figures (polled every 5 s), charts over time (uPlot,
// in its own lazy chunk) and the agent versions of the fleet. Every figure
// links to the list behind it.
import { useQuery } from '@tanstack/react-query';
import { Card, Col, Empty, Progress, Row, Segmented, Skeleton, Table, Tag, Typography } from 'antd';
import './dashboard.css';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useFormat, useI18n } from '../../i18n';
import { ErrorState } from '../../ui/ErrorState';
import { PageHeader } from '../../ui/PageHeader';
import { adminApi } from '../api';
import { aqk } from '../queryKeys';
import type { AgentVersions, DashboardSeries, DashboardSummary, SeriesBucket } from '../types';

const DashboardCharts = lazy(() => import('../charts/DashboardCharts'));

const POINTS: Record<SeriesBucket, number> = { hour: 24, day: 30 };

interface FigureProps {
  testid: string;
  to: string;
  title: string;
  value: ReactNode;
  extra?: ReactNode;
}

function Figure({ testid, to, title, value, extra }: FigureProps) {
  return (
    <Link to={to} data-testid={testid} style={{ display: 'block', height: '100%' }}>
      <Card hoverable size="small" style={{ height: '100%' }}>
        <Typography.Text type="secondary">{title}</Typography.Text>
        <div className="hg-figure">{value}</div>
        {extra}
      </Card>
    </Link>
  );
}

export default function DashboardPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const [bucket, setBucket] = useState<SeriesBucket>('hour');
  const summary = useQuery({
    queryKey: aqk.summary,
    queryFn: ({ signal }) => adminApi.get<DashboardSummary>('/v1/admin/dashboard/summary', undefined, signal),
    refetchInterval: 5_000,
  });
  const series = useQuery({
    queryKey: aqk.series(bucket, POINTS[bucket]),
    queryFn: ({ signal }) =>
      adminApi.get<DashboardSeries>('/v1/admin/dashboard/series', { bucket, points: POINTS[bucket] }, signal),
    refetchInterval: 60_000,
  });
  const versions = useQuery({
    queryKey: aqk.agentVersions,
    queryFn: ({ signal }) => adminApi.get<AgentVersions>('/v1/admin/dashboard/agent-versions', undefined, signal),
    refetchInterval: 30_000,
  });

  const s = summary.data;
  const fig = (n: number | undefined) => (s ? fmt.number(n ?? 0) : '…');
  const byStatus = s?.hosts_by_status ?? {};

  const note = (text: string) => (
    <Typography.Text type="secondary" style={{ fontSize: 12 }}>
      {text}
    </Typography.Text>
  );
  // The live figures, in their order on the page; each links to the list behind it.
  const figures: FigureProps[] = [
    {
      testid: 'dash-online-hosts',
      to: '/admin/hosts?online=true',
      title: t('admin.dash.onlineHosts'),
      value: (
        <span data-value={s?.online_hosts ?? ''}>
          {fig(s?.online_hosts)}
          <Typography.Text type="secondary" style={{ fontSize: 14 }}>
            {' '}
            / {fig(s?.total_hosts)}
          </Typography.Text>
        </span>
      ),
    },
    {
      testid: 'dash-today-revenue',
      to: '/admin/recharges?status=paid',
      title: t('admin.dash.todayRevenue'),
      value: <span data-value={s?.today_revenue_cny ?? ''}>{s ? fmt.cny(s.today_revenue_cny) : '…'}</span>,
    },
    {
      testid: 'dash-today-calls',
      to: '/admin/users',
      title: t('admin.dash.todayCalls'),
      value: <span data-value={s?.today_calls ?? ''}>{fig(s?.today_calls)}</span>,
      extra: note(t('admin.dash.tokensCharged', { tokens: s ? fmt.tokens(s.today_tokens_charged) : '…' })),
    },
    {
      testid: 'dash-pending-recharges',
      to: '/admin/recharges?status=pending',
      title: t('admin.dash.pendingRecharges'),
      value: fig(s?.pending_recharges),
    },
    {
      testid: 'dash-users',
      to: '/admin/users',
      title: t('admin.dash.users'),
      value: fig(s?.users_total),
      extra: note(t('admin.dash.usersSuspended', { n: fig(s?.users_suspended) })),
    },
    {
      testid: 'dash-billing-mode',
      to: '/admin/pricing',
      title: t('admin.dash.billingMode'),
      value: s ? t(`admin.billing.mode.${s.billing_mode}`) : '…',
    },
    { testid: 'dash-webhooks-pending', to: '/admin/hosts', title: t('admin.dash.webhooksPending'), value: fig(s?.webhooks_pending) },
    { testid: 'dash-webhooks-dead', to: '/admin/hosts', title: t('admin.dash.webhooksDead'), value: fig(s?.webhooks_dead) },
  ];

  return (
    <>
      <PageHeader title={t('admin.nav.dashboard')} />
      {summary.isError && !s ? <ErrorState error={summary.error} onRetry={() => void summary.refetch()} /> : null}
      <Row gutter={[12, 12]}>
        {figures.map((f) => (
          <Col key={f.testid} xs={12} md={8} xl={4}>
            <Figure {...f} />
          </Col>
        ))}
        <Col xs={24} xl={16}>
          <Card size="small" title={t('admin.dash.hostsByStatus')} style={{ height: '100%' }}>
            {Object.keys(byStatus).length === 0 ? (
              <Typography.Text type="secondary">{t('admin.dash.noHosts')}</Typography.Text>
            ) : (
              Object.entries(byStatus).map(([st, n]) => (
                <Link key={st} to={`/admin/hosts?status=${encodeURIComponent(st)}`} data-testid="dash-hosts-status">
                  <Tag style={{ marginBottom: 6 }}>
                    {t(`host.status.${st}`)}: {fmt.number(n)}
                  </Tag>
                </Link>
              ))
            )}
          </Card>
        </Col>
      </Row>

      <Card
        size="small"
        style={{ marginTop: 16 }}
        title={t('admin.dash.overTime')}
        extra={
          <Segmented<SeriesBucket>
            data-testid="dash-bucket"
            value={bucket}
            onChange={setBucket}
            options={[
              { value: 'hour', label: t('admin.dash.hourly') },
              { value: 'day', label: t('admin.dash.daily') },
            ]}
          />
        }
      >
        {series.isError && !series.data ? (
          <ErrorState error={series.error} onRetry={() => void series.refetch()} />
        ) : !series.data ? (
          <Skeleton active paragraph={{ rows: 6 }} />
        ) : (series.data.items ?? []).length === 0 ? (
          <Empty description={t('admin.dash.noSeries')} />
        ) : (
          <Suspense fallback={<Skeleton active paragraph={{ rows: 6 }} />}>
            <DashboardCharts series={series.data} />
          </Suspense>
        )}
      </Card>

      <Card size="small" style={{ marginTop: 16 }} title={t('admin.dash.agentVersions')}>
        {versions.isError && !versions.data ? (
          <ErrorState error={versions.error} onRetry={() => void versions.refetch()} />
        ) : (
          <Table
            data-testid="dash-agent-versions"
            size="small"
            rowKey={(r) => r.version || '-'}
            loading={!versions.data}
            pagination={false}
            scroll={{ x: 'max-content' }}
            dataSource={versions.data?.items ?? []}
            columns={[
              {
                title: t('admin.versions.version'),
                dataIndex: 'version',
                render: (v: string) => (
                  <Link to={v ? `/admin/hosts?agent_version=${encodeURIComponent(v)}` : '/admin/hosts?status=pending'}>
                    {v || t('admin.dash.versionUnknown')}
                  </Link>
                ),
              },
              { title: t('admin.dash.hosts'), dataIndex: 'hosts', render: (n: number) => fmt.number(n) },
              { title: t('admin.dash.online'), dataIndex: 'online', render: (n: number) => fmt.number(n) },
              {
                title: t('admin.dash.share'),
                key: 'share',
                render: (_: unknown, r) => {
                  const total = (versions.data?.items ?? []).reduce((a, v) => a + v.hosts, 0);
                  return <Progress percent={total ? Math.round((r.hosts / total) * 100) : 0} size="small" style={{ minWidth: 120 }} />;
                },
              },
            ]}
          />
        )}
      </Card>
    </>
  );
}
