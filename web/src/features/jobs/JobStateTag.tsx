import { Tag } from 'antd';
import type { JobState, RunState } from '../../api/types';
import { useI18n } from '../../i18n';

const RUN_COLOR: Record<RunState, string> = {
  queued: 'default',
  running: 'processing',
  succeeded: 'success',
  failed: 'error',
  skipped: 'warning',
  expired: 'default',
  canceled: 'default',
};

const JOB_COLOR: Record<JobState, string> = { running: 'processing', finished: 'success', canceled: 'default' };

export function JobStateTag({ state, testid }: { state: JobState; testid?: string }) {
  const { t } = useI18n();
  return (
    <Tag color={JOB_COLOR[state] ?? 'default'} data-testid={testid} data-state={state} style={{ margin: 0 }}>
      {t(`jobs.state.${state}`)}
    </Tag>
  );
}

export function RunStateTag({ state }: { state: RunState }) {
  const { t } = useI18n();
  return (
    <Tag color={RUN_COLOR[state] ?? 'default'} data-state={state} style={{ margin: 0 }}>
      {t(`jobs.run.${state}`)}
    </Tag>
  );
}
