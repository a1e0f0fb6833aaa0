import { DeleteOutlined, HistoryOutlined, PauseCircleOutlined, PlayCircleOutlined, PlusOutlined } from '@ant-design/icons';
import { Button, Modal, Space, Table, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { JobOperation, Schedule } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { pageFromSearch, pageToParams, pageToSearch } from '../../lib/paging';
import { ErrorState } from '../../ui/ErrorState';
import { LinkButton } from '../../ui/LinkButton';
import { ListTable } from '../../ui/ListTable';
import { usePager } from '../../ui/pager';
import { PageHeader } from '../../ui/PageHeader';
import { useConfirm } from '../../ui/useConfirm';
import { operationSummary } from '../jobs/jobs';
import { useDeleteSchedule, useScheduleRuns, useSchedules, useSetSchedulePaused } from './hooks';

function RunsDialog({ s, onClose }: { s: Schedule; onClose: () => void }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const [page, setPage] = useState({ limit: 10, offset: 0 });
  const runs = useScheduleRuns(s.id, page);
  const pager = usePager();
  return (
    <Modal open title={t('schedules.historyTitle', { name: s.name })} onCancel={onClose} footer={null} width={640} destroyOnHidden>
      {runs.isError && !runs.data ? (
        <ErrorState error={runs.error} onRetry={() => void runs.refetch()} />
      ) : (
        <div data-testid="schedule-runs-table">
          <Table
            size="small"
            rowKey={(r) => r.at + (r.job_id ?? '')}
            loading={runs.isPending}
            dataSource={runs.data?.items ?? []}
            pagination={pager({ page, total: runs.data?.total, onChange: (p, size) => setPage(pageToParams(p, size)), compact: true })}
            locale={{ emptyText: t('schedules.noRuns') }}
            columns={[
              { title: t('schedules.runAt'), key: 'at', render: (_, r) => fmt.dateTime(r.at) },
              {
                title: t('schedules.runJob'),
                key: 'job',
                render: (_, r) =>
                  r.job_id ? <Link to={`/jobs/${encodeURIComponent(r.job_id)}`}>{r.job_id.slice(0, 8)}</Link> : '—',
              },
              {
                title: t('jobs.col.error'),
                key: 'err',
                render: (_, r) => (r.error ? <Typography.Text type="danger">{r.message || r.error}</Typography.Text> : '—'),
              },
            ]}
          />
        </div>
      )}
    </Modal>
  );
}

/** /schedules: the caller's schedules, with next run, pause/resume, history and delete. */
export default function SchedulesPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const confirm = useConfirm();
  const [sp, setSp] = useSearchParams();
  const page = pageFromSearch(sp);
  const list = useSchedules(page);
  const setPaused = useSetSchedulePaused();
  const del = useDeleteSchedule();
  const [history, setHistory] = useState<Schedule | null>(null);

  const columns: ColumnsType<Schedule> = [
    { title: t('schedules.name'), key: 'name', render: (_, s) => <Typography.Text strong>{s.name}</Typography.Text> },
    {
      title: t('schedules.when'),
      key: 'when',
      render: (_, s) =>
        s.cron ? (
          <Space size={4} wrap>
            <Typography.Text code>{s.cron}</Typography.Text>
            <Typography.Text type="secondary">{s.timezone}</Typography.Text>
          </Space>
        ) : s.at ? (
          t('schedules.onceAt', { time: fmt.dateTime(s.at) })
        ) : (
          '—'
        ),
    },
    {
      title: t('jobs.col.command'),
      key: 'op',
      render: (_, s) => (
        <Typography.Text code ellipsis style={{ maxWidth: 220 }}>
          {operationSummary(s.job.operation as JobOperation | undefined)}
        </Typography.Text>
      ),
    },
    {
      title: t('schedules.next'),
      key: 'next',
      render: (_, s) =>
        s.paused ? (
          <Tag data-testid="schedule-paused-tag">{t('schedules.paused')}</Tag>
        ) : s.next_run_at ? (
          <span data-testid="schedule-next">{fmt.dateTime(s.next_run_at)}</span>
        ) : (
          '—'
        ),
    },
    {
      title: t('schedules.last'),
      key: 'last',
      render: (_, s) =>
        s.last_run_at ? (
          s.last_job_id ? (
            <Link to={`/jobs/${encodeURIComponent(s.last_job_id)}`}>{fmt.dateTime(s.last_run_at)}</Link>
          ) : (
            fmt.dateTime(s.last_run_at)
          )
        ) : (
          t('common.never')
        ),
    },
    {
      title: t('common.actions'),
      key: 'actions',
      render: (_, s) => (
        <Space size={4} wrap>
          {s.paused ? (
            <Button size="small" icon={<PlayCircleOutlined />} data-testid="schedule-resume" onClick={() => setPaused.mutate({ id: s.id, paused: false })}>
              {t('schedules.resume')}
            </Button>
          ) : (
            <Button size="small" icon={<PauseCircleOutlined />} data-testid="schedule-pause" onClick={() => setPaused.mutate({ id: s.id, paused: true })}>
              {t('schedules.pause')}
            </Button>
          )}
          <Button size="small" icon={<HistoryOutlined />} data-testid="schedule-history" onClick={() => setHistory(s)}>
            {t('schedules.history')}
          </Button>
          <Button
            size="small"
            danger
            icon={<DeleteOutlined />}
            data-testid="schedule-delete"
            aria-label={t('common.delete')}
            onClick={() => confirm({ title: t('schedules.deleteTitle', { name: s.name }), onOk: () => del.mutateAsync(s.id) })}
          />
        </Space>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title={t('schedules.title')}
        extra={
          <LinkButton to="/schedules/new" type="primary" icon={<PlusOutlined />} data-testid="schedule-create">
            {t('schedules.new')}
          </LinkButton>
        }
      />
      <ListTable<Schedule>
        query={list}
        testid="schedules-table"
        columns={columns}
        onChange={(pg) => setSp(pageToSearch(sp, pageToParams(pg.current ?? 1, pg.pageSize ?? page.limit)), { replace: true })}
        rowAttrs={(s) => ({ 'data-testid': 'schedule-row', 'data-schedule-id': s.id, 'data-paused': String(s.paused) })}
        page={page}
        totalKey="common.total"
        filtered={false}
        emptyText={t('schedules.empty')}
        emptyFilteredText=""
        clearText=""
        onClear={() => undefined}
        emptyAction={
          <LinkButton to="/schedules/new" type="primary" icon={<PlusOutlined />}>
            {t('schedules.new')}
          </LinkButton>
        }
      />
      {history && <RunsDialog s={history} onClose={() => setHistory(null)} />}
    </>
  );
}
