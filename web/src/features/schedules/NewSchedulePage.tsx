import { Card, Form, Input, Radio, Select, Switch } from 'antd';
import { useMemo } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import type { ScheduleBody } from '../../api/types';
import { useI18n } from '../../i18n';
import { PageHeader } from '../../ui/PageHeader';
import { JobForm } from '../jobs/JobForm';
import { targetFromSearch } from '../jobs/jobs';
import { useCreateSchedule } from './hooks';
import { localInputToISO, looksLikeCron, timeZones } from './schedule';

interface ScheduleValues {
  sched_name: string;
  sched_kind: 'cron' | 'at';
  sched_cron?: string;
  sched_tz?: string;
  sched_at?: string;
  sched_paused?: boolean;
}

/** The schedule's own fields, inside the job form. */
function ScheduleFields() {
  const { t } = useI18n();
  const form = Form.useFormInstance<ScheduleValues>();
  const kind = Form.useWatch('sched_kind', form) ?? 'cron';
  const zones = useMemo(() => timeZones().map((z) => ({ value: z, label: z })), []);
  return (
    <Card size="small" title={t('schedules.when')} style={{ marginBottom: 16 }}>
      <Form.Item name="sched_name" label={t('schedules.name')} rules={[{ required: true, whitespace: true, message: t('schedules.nameRequired') }, { max: 100 }]}>
        <Input data-testid="schedule-name" maxLength={100} />
      </Form.Item>
      <Form.Item name="sched_kind" style={{ marginBottom: 12 }}>
        <Radio.Group
          data-testid="schedule-kind"
          optionType="button"
          options={[
            { value: 'cron', label: t('schedules.kind.cron') },
            { value: 'at', label: t('schedules.kind.at') },
          ]}
        />
      </Form.Item>
      {kind === 'cron' ? (
        <div style={{ display: 'flex', gap: 16, flexWrap: 'wrap' }}>
          <Form.Item
            name="sched_cron"
            label={t('schedules.cron')}
            extra={t('schedules.cronHelp')}
            style={{ flex: '1 1 220px' }}
            rules={[
              { required: true, message: t('schedules.cronInvalid') },
              { validator: (_, v: string) => (!v || looksLikeCron(v) ? Promise.resolve() : Promise.reject(new Error(t('schedules.cronInvalid')))) },
            ]}
          >
            <Input data-testid="schedule-cron" className="hg-mono" placeholder="*/15 * * * *" spellCheck={false} />
          </Form.Item>
          <Form.Item name="sched_tz" label={t('schedules.timezone')} style={{ flex: '1 1 220px' }}>
            <Select data-testid="schedule-timezone" showSearch options={zones} aria-label={t('schedules.timezone')} />
          </Form.Item>
        </div>
      ) : (
        <Form.Item
          name="sched_at"
          label={t('schedules.at')}
          extra={t('schedules.atHelp')}
          rules={[
            {
              validator: (_, v: string) => (v && localInputToISO(v) ? Promise.resolve() : Promise.reject(new Error(t('schedules.atInvalid')))),
            },
          ]}
        >
          <Input data-testid="schedule-at" type="datetime-local" style={{ maxWidth: 260 }} />
        </Form.Item>
      )}
      <Form.Item name="sched_paused" label={t('schedules.startPaused')} valuePropName="checked" style={{ marginBottom: 0 }}>
        <Switch data-testid="schedule-paused" />
      </Form.Item>
    </Card>
  );
}

/** /schedules/new: a job template with a cron line (and time zone) or a one-off time. */
export default function NewSchedulePage() {
  const { t } = useI18n();
  const [sp] = useSearchParams();
  const navigate = useNavigate();
  const create = useCreateSchedule();
  const initial = useMemo(
    () => ({ ...targetFromSearch(sp), sched_kind: 'cron', sched_tz: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', sched_paused: false }),
    [sp],
  );
  return (
    <>
      <PageHeader title={t('schedules.newTitle')} />
      <JobForm
        initial={initial}
        schedule={{
          fields: <ScheduleFields />,
          submitText: t('schedules.create'),
          pending: create.isPending,
          error: create.error,
          onSubmit: (job, values) => {
            const v = values as unknown as ScheduleValues;
            const body: ScheduleBody = { name: v.sched_name.trim(), job, paused: Boolean(v.sched_paused) };
            if (v.sched_kind === 'at') {
              body.at = localInputToISO(v.sched_at ?? '');
            } else {
              body.cron = (v.sched_cron ?? '').trim();
              body.timezone = v.sched_tz || 'UTC';
            }
            create.mutate(body, { onSuccess: () => void navigate('/schedules') });
          },
        }}
      />
    </>
  );
}
