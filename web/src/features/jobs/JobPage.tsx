import { RedoOutlined, StopOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Descriptions, Flex, Progress, Select, Space, Statistic, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/client';
import type { JobResult, RunState } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { pageToParams } from '../../lib/paging';
import { ErrorState } from '../../ui/ErrorState';
import { ListTable, ListToolbar } from '../../ui/ListTable';
import { PageHeader } from '../../ui/PageHeader';
import { useConfirm } from '../../ui/useConfirm';
import { PageSkeleton } from '../../app/Shell';
import { useCancelJob, useJob, useJobOutput, useJobResults, useRetryJob } from './hooks';
import {
  jobIsLive,
  jobProgress,
  jobRevision,
  operationSummary,
  resultParamsFromSearch,
  resultParamsToSearch,
  RUN_STATES,
  type ResultParams,
} from './jobs';
import { JobStateTag, RunStateTag } from './JobStateTag';

function Output({ label, text, err }: { label: string; text?: string; err?: boolean }) {
  if (!text) return null;
  return (
    <>
      <Typography.Text type="secondary">{label}</Typography.Text>
      <pre className={err ? 'hg-output hg-output-err' : 'hg-output'}>{text}</pre>
    </>
  );
}

/** A result's expanded row: the excerpts, and the whole output on demand. */
function ResultDetail({ jobId, r }: { jobId: string; r: JobResult }) {
  const { t } = useI18n();
  const [full, setFull] = useState(false);
  const out = useJobOutput(jobId, r.host_id, full);
  return (
    // Kept to the page's width (sticky at the left) when the table scrolls sideways.
    <div data-testid="job-result-output" data-host-id={r.host_id} style={{ position: 'sticky', left: 16, maxWidth: 'calc(100vw - 64px)' }}>
      {r.message && <Alert type={r.state === 'failed' ? 'error' : 'info'} showIcon style={{ marginBottom: 8 }} message={r.message} />}
      {!full && (
        <>
          <Output label={t('jobs.stdout')} text={r.stdout} />
          <Output label={t('jobs.stderr')} text={r.stderr} err />
          {!r.stdout && !r.stderr && !r.message && <Typography.Text type="secondary">{t('jobs.noOutput')}</Typography.Text>}
        </>
      )}
      {full && (
        <div data-testid="job-full-output-panel">
          {out.isPending && <Typography.Text type="secondary">…</Typography.Text>}
          {out.isError && <Alert type="warning" showIcon message={errorMessage(out.error)} />}
          {out.data && (
            <>
              <Output label={t('jobs.stdout')} text={out.data.stdout} />
              <Output label={t('jobs.stderr')} text={out.data.stderr} err />
              {!out.data.stdout && !out.data.stderr && out.data.result !== undefined && out.data.result !== null && (
                <Output label={t('jobs.result')} text={JSON.stringify(out.data.result, null, 2)} />
              )}
            </>
          )}
        </div>
      )}
      {!full && (r.output_truncated || r.stdout || r.stderr) && r.started_at && (
        <Button size="small" data-testid="job-full-output" onClick={() => setFull(true)}>
          {t('jobs.fullOutput')}
        </Button>
      )}
    </div>
  );
}

/** /jobs/:id: live progress, counts by state, Cancel and Retry, the results host by host. */
export default function JobPage() {
  const { id = '' } = useParams();
  const { t } = useI18n();
  const fmt = useFormat();
  const navigate = useNavigate();
  const confirm = useConfirm();
  const [sp, setSp] = useSearchParams();
  const rp = resultParamsFromSearch(sp);
  const job = useJob(id);
  const live = job.data ? jobIsLive(job.data) : true;
  const results = useJobResults(id, rp, live, jobRevision(job.data));
  const cancel = useCancelJob(id);
  const retry = useRetryJob(id);
  const updateResults = (p: Partial<ResultParams>) => setSp((cur) => resultParamsToSearch(cur, { ...rp, ...p }), { replace: true });

  if (job.isError && !job.data) return <ErrorState error={job.error} onRetry={() => void job.refetch()} />;
  if (!job.data) return <PageSkeleton />;
  const j = job.data;
  const p = jobProgress(j);
  const title = j.name || operationSummary(j.operation);

  const columns: ColumnsType<JobResult> = [
    {
      title: t('jobs.col.host'),
      key: 'host',
      render: (_, r) => <Link to={`/hosts/${encodeURIComponent(r.host_id)}`}>{r.host_name || r.host_id}</Link>,
    },
    { title: t('jobs.col.state'), key: 'state', render: (_, r) => <RunStateTag state={r.state} /> },
    {
      title: t('jobs.col.exit'),
      key: 'exit',
      render: (_, r) => (r.exit_code === null || r.exit_code === undefined ? '—' : String(r.exit_code)),
    },
    { title: t('jobs.col.error'), key: 'error', render: (_, r) => (r.error ? <Typography.Text code>{r.error}</Typography.Text> : '—') },
    { title: t('jobs.col.charged'), key: 'charged', render: (_, r) => fmt.tokens(r.charged ?? 0) },
    ...(j.waves ? [{ title: t('jobs.col.wave'), key: 'wave', render: (_: unknown, r: JobResult) => r.wave ?? '—' }] : []),
    { title: t('jobs.col.finished'), key: 'finished', render: (_, r) => (r.finished_at ? fmt.dateTime(r.finished_at) : '—') },
  ];

  return (
    <>
      <PageHeader
        title={
          <Space wrap>
            <span data-testid="job-title">{title}</span>
            <JobStateTag state={j.state} testid="job-state" />
          </Space>
        }
        extra={
          <>
            {j.state === 'running' && (
              <Button
                danger
                icon={<StopOutlined />}
                data-testid="job-cancel"
                onClick={() =>
                  confirm({
                    title: t('jobs.cancelTitle'),
                    content: t('jobs.cancelText'),
                    okText: t('jobs.cancel'),
                    onOk: () => cancel.mutateAsync(),
                  })
                }
              >
                {t('jobs.cancel')}
              </Button>
            )}
            {!live && j.totals.failed > 0 && (
              <Button
                icon={<RedoOutlined />}
                data-testid="job-retry-failed"
                loading={retry.isPending}
                onClick={() => retry.mutate(['failed'], { onSuccess: (n) => void navigate(`/jobs/${encodeURIComponent(n.id)}`) })}
              >
                {t('jobs.retryFailed', { count: j.totals.failed })}
              </Button>
            )}
          </>
        }
      />
      {j.stop_reason && j.stop_reason !== 'canceled' && (
        <Alert style={{ marginBottom: 16 }} type="warning" showIcon message={t(`jobs.stop.${j.stop_reason}`)} />
      )}
      <Card size="small" style={{ marginBottom: 16 }}>
        <div data-testid="job-progress" data-percent={p.percent} data-done={p.done} data-live={String(live)}>
          <Progress
            percent={p.percent}
            success={{ percent: p.successPercent }}
            status={j.totals.failed > 0 && !live ? 'exception' : live ? 'active' : 'success'}
            format={() => `${fmt.number(p.done)} / ${fmt.number(j.host_count)}`}
          />
        </div>
        <Flex gap={24} wrap="wrap" style={{ marginTop: 12 }}>
          {RUN_STATES.map((s) => (
            <div key={s} data-testid="job-count" data-state={s} data-count={j.totals[s] ?? 0}>
              <Statistic
                title={t(`jobs.run.${s}`)}
                value={j.totals[s] ?? 0}
                valueStyle={{
                  fontSize: 20,
                  color: s === 'succeeded' && j.totals[s] ? '#389e0d' : s === 'failed' && j.totals[s] ? '#cf1322' : undefined,
                }}
              />
            </div>
          ))}
        </Flex>
      </Card>
      <Card size="small" style={{ marginBottom: 16 }}>
        <Descriptions size="small" column={{ xs: 1, sm: 2, lg: 3 }}>
          <Descriptions.Item label={t('jobs.col.command')}>
            <Typography.Text code>{operationSummary(j.operation)}</Typography.Text>
          </Descriptions.Item>
          <Descriptions.Item label={t('jobs.target')}>
            {j.target.tags?.length
              ? j.target.tags.join(', ')
              : j.target.filter_id
                ? t('jobs.targetKind.filter')
                : t('jobs.hostCount', { count: j.host_count })}
          </Descriptions.Item>
          <Descriptions.Item label={t('jobs.offline')}>{t(`jobs.offline.${j.offline}`)}</Descriptions.Item>
          <Descriptions.Item label={t('jobs.concurrency')}>{j.concurrency}</Descriptions.Item>
          {j.waves && (
            <Descriptions.Item label={t('jobs.waves')}>
              {t('jobs.waveOf', { wave: j.wave ?? 1, size: j.waves.size })}
            </Descriptions.Item>
          )}
          <Descriptions.Item label={t('jobs.col.charged')}>{t('jobs.tokens', { tokens: fmt.tokens(j.charged) })}</Descriptions.Item>
          <Descriptions.Item label={t('jobs.col.created')}>{fmt.dateTime(j.created_at)}</Descriptions.Item>
          <Descriptions.Item label={t('jobs.expiresAt')}>{fmt.dateTime(j.expires_at)}</Descriptions.Item>
          {j.finished_at && <Descriptions.Item label={t('jobs.col.finished')}>{fmt.dateTime(j.finished_at)}</Descriptions.Item>}
          {j.retry_of && (
            <Descriptions.Item label={t('jobs.retryOf')}>
              <Link to={`/jobs/${encodeURIComponent(j.retry_of)}`}>{j.retry_of.slice(0, 8)}</Link>
            </Descriptions.Item>
          )}
          {j.schedule_id && <Descriptions.Item label={t('jobs.fromSchedule')}><Link to="/schedules">{j.schedule_id.slice(0, 8)}</Link></Descriptions.Item>}
        </Descriptions>
      </Card>
      <Typography.Title level={4}>{t('jobs.results')}</Typography.Title>
      <ListToolbar>
        <Select<RunState | ''>
          data-testid="job-results-state-filter"
          aria-label={t('jobs.stateFilter')}
          value={rp.state ?? ''}
          onChange={(v) => updateResults({ state: v || undefined, offset: 0 })}
          style={{ width: 180 }}
          options={[{ value: '', label: t('jobs.allStates') }, ...RUN_STATES.map((s) => ({ value: s, label: t(`jobs.run.${s}`) }))]}
        />
      </ListToolbar>
      <ListTable<JobResult & { id: string }>
        query={{
          ...results,
          data: results.data ? { ...results.data, items: (results.data.items ?? []).map((r) => ({ ...r, id: r.host_id })) } : undefined,
        }}
        testid="job-results-table"
        columns={columns as ColumnsType<JobResult & { id: string }>}
        onChange={(pg) => updateResults(pageToParams(pg.current ?? 1, pg.pageSize ?? rp.limit))}
        rowAttrs={(r) => ({ 'data-testid': 'job-result-row', 'data-host-id': r.host_id, 'data-state': r.state })}
        page={rp}
        totalKey="common.total"
        filtered={Boolean(rp.state)}
        emptyText={t('jobs.noResults')}
        emptyFilteredText={t('jobs.noResultsFiltered')}
        clearText={t('hosts.clearFilters')}
        onClear={() => updateResults({ state: undefined, offset: 0 })}
        expandable={{
          expandedRowRender: (r) => <ResultDetail jobId={id} r={r} />,
          rowExpandable: (r) => r.state !== 'queued',
        }}
      />
    </>
  );
}
