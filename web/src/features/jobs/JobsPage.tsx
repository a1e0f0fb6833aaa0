import { PlusOutlined } from '@ant-design/icons';
import { Progress, Select, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { Link, useSearchParams } from 'react-router';
import type { Job, JobState } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { pageToParams } from '../../lib/paging';
import { LinkButton } from '../../ui/LinkButton';
import { ListTable, ListToolbar } from '../../ui/ListTable';
import { PageHeader } from '../../ui/PageHeader';
import { useJobs } from './hooks';
import { JOB_STATES, jobParamsFromSearch, jobParamsToSearch, jobProgress, operationSummary } from './jobs';
import { JobStateTag } from './JobStateTag';

/** /jobs?state=&page=&size=: the caller's jobs, newest first. */
export default function JobsPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const [sp, setSp] = useSearchParams();
  const params = jobParamsFromSearch(sp);
  const jobs = useJobs(params);
  const update = (p: Partial<typeof params>) => setSp(jobParamsToSearch({ ...params, ...p }), { replace: true });

  const columns: ColumnsType<Job> = [
    {
      title: t('jobs.col.job'),
      key: 'name',
      render: (_, j) => (
        <Link to={`/jobs/${encodeURIComponent(j.id)}`} data-testid="job-link">
          {j.name || operationSummary(j.operation)}
        </Link>
      ),
    },
    { title: t('jobs.col.state'), key: 'state', render: (_, j) => <JobStateTag state={j.state} /> },
    {
      title: t('jobs.col.progress'),
      key: 'progress',
      render: (_, j) => {
        const p = jobProgress(j);
        return (
          <div style={{ minWidth: 140 }}>
            <Progress
              percent={p.percent}
              success={{ percent: p.successPercent }}
              size="small"
              status={j.totals.failed > 0 ? 'exception' : j.state === 'running' ? 'active' : 'normal'}
              format={() => `${fmt.number(p.done)}/${fmt.number(j.host_count)}`}
            />
          </div>
        );
      },
    },
    {
      title: t('jobs.col.command'),
      key: 'op',
      render: (_, j) => (
        <Typography.Text code ellipsis style={{ maxWidth: 260 }}>
          {operationSummary(j.operation)}
        </Typography.Text>
      ),
    },
    { title: t('jobs.col.charged'), key: 'charged', render: (_, j) => fmt.tokens(j.charged) },
    { title: t('jobs.col.created'), key: 'created', render: (_, j) => fmt.dateTime(j.created_at) },
  ];

  return (
    <>
      <PageHeader
        title={t('jobs.title')}
        extra={
          <LinkButton to="/jobs/new" type="primary" icon={<PlusOutlined />} data-testid="job-new">
            {t('jobs.new')}
          </LinkButton>
        }
      />
      <ListToolbar>
        <Select<JobState | ''>
          data-testid="jobs-state-filter"
          aria-label={t('jobs.stateFilter')}
          value={params.state ?? ''}
          onChange={(v) => update({ state: v || undefined, offset: 0 })}
          style={{ width: 180 }}
          options={[{ value: '', label: t('jobs.allStates') }, ...JOB_STATES.map((s) => ({ value: s, label: t(`jobs.state.${s}`) }))]}
        />
      </ListToolbar>
      <ListTable<Job>
        query={jobs}
        testid="jobs-table"
        columns={columns}
        onChange={(pg) => update(pageToParams(pg.current ?? 1, pg.pageSize ?? params.limit))}
        rowAttrs={(j) => ({ 'data-testid': 'job-row', 'data-job-id': j.id, 'data-state': j.state })}
        page={params}
        totalKey="common.total"
        filtered={Boolean(params.state)}
        emptyText={t('jobs.empty')}
        emptyFilteredText={t('jobs.emptyFiltered')}
        clearText={t('hosts.clearFilters')}
        onClear={() => update({ state: undefined, offset: 0 })}
        emptyAction={
          <LinkButton to="/jobs/new" type="primary" icon={<PlusOutlined />}>
            {t('jobs.new')}
          </LinkButton>
        }
      />
    </>
  );
}
