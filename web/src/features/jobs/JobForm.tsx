import { Alert, Button, Card, Collapse, Descriptions, Form, Input, InputNumber, Modal, Radio, Select, Switch, Typography } from 'antd';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { api } from '../../api/client';
import type { DryRun, HostPage, JobRequest } from '../../api/types';
import { useBalance } from '../../hooks/billing';
import { useSavedFilters } from '../../hooks/tags';
import { useFormat, useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';
import { TagSelect } from '../tags/TagSelect';
import { useDryRun } from './hooks';
import { buildJobRequest, JOB_DEFAULTS, shellOperation, type JobFormValues } from './jobs';

/** The hosts a "selected hosts" target can pick from (searched by name). */
function HostPicker({ value, onChange }: { value?: string[]; onChange?: (v: string[]) => void }) {
  const { t } = useI18n();
  const [q, setQ] = useState('');
  const [names, setNames] = useState<Record<string, string>>({});
  const hosts = useQuery({
    queryKey: ['hosts', 'picker', q],
    queryFn: ({ signal }) => api.get<HostPage>('/v1/user/hosts', { q, limit: 200, sort: 'name' }, signal),
    placeholderData: keepPreviousData,
  });
  const items = hosts.data?.items ?? [];
  const known = { ...names };
  for (const h of items) known[h.id] = h.name;
  if (items.some((h) => names[h.id] !== h.name)) setNames(known);
  const options = [
    ...items.map((h) => ({ value: h.id, label: h.name })),
    ...(value ?? []).filter((id) => !items.some((h) => h.id === id)).map((id) => ({ value: id, label: known[id] ?? id })),
  ];
  return (
    <Select
      data-testid="job-target-hosts"
      aria-label={t('jobs.targetHosts')}
      mode="multiple"
      value={value}
      onChange={onChange}
      showSearch
      filterOption={false}
      onSearch={setQ}
      onBlur={() => setQ('')}
      options={options}
      loading={hosts.isFetching}
      placeholder={t('jobs.targetHostsPlaceholder')}
      maxTagCount={20}
    />
  );
}

export interface ScheduleExtra {
  /** The schedule's own fields, rendered above the job's. */
  fields: ReactNode;
  submitText: string;
  pending: boolean;
  error: unknown;
  onSubmit: (req: Omit<JobRequest, 'dry_run'>, values: JobFormValues) => void;
}

type Values = JobFormValues;

/**
 * The job form shared by "New job" and "New schedule": target (hosts, tags or
 * a saved filter), the operation (a shell command, or raw
 * {controls, path, data}), and the options. As a job it previews first (a dry
 * run: how many hosts, the most it can cost) and runs on confirm.
 */
export function JobForm(props: {
  initial: Pick<Values, 'targetKind' | 'hostIds' | 'tags' | 'filterId'> & Partial<Values>;
  /** Called with the confirmed request (jobs). */
  onRun?: (req: JobRequest) => void;
  runPending?: boolean;
  runError?: unknown;
  schedule?: ScheduleExtra;
}) {
  const { t } = useI18n();
  const fmt = useFormat();
  const [form] = Form.useForm<Values>();
  const dry = useDryRun();
  const balance = useBalance();
  const filters = useSavedFilters();
  const [preview, setPreview] = useState<{ req: JobRequest; res: DryRun } | null>(null);
  const [rawError, setRawError] = useState('');
  const targetKind = Form.useWatch('targetKind', form) ?? props.initial.targetKind;
  const opKind = Form.useWatch('opKind', form) ?? 'shell';
  const wavesOn = Form.useWatch('wavesOn', form) ?? false;

  const initialValues: Values = useMemo(
    () => ({
      opKind: 'shell',
      shell: { program: '/bin/sh', command: '', timeout_s: 60 },
      raw: '',
      offline: JOB_DEFAULTS.offline,
      expires_in_s: JOB_DEFAULTS.expires_in_s,
      concurrency: JOB_DEFAULTS.concurrency,
      wavesOn: false,
      waveSize: 10,
      wavePause: 0,
      waveStopPct: null,
      ...props.initial,
    }),
    // The form starts from the page's first values only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );

  const request = (v: Values, dryRun: boolean): JobRequest | null => {
    setRawError('');
    try {
      return buildJobRequest({ ...initialValues, ...v, shell: { ...initialValues.shell, ...v.shell } }, dryRun);
    } catch (e) {
      setRawError(t(e instanceof Error && e.message === 'raw_json' ? 'jobs.rawJson' : 'jobs.rawShape'));
      return null;
    }
  };

  const onFinish = (v: Values) => {
    const req = request(v, true);
    if (!req) return;
    if (props.schedule) {
      const job: Omit<JobRequest, 'dry_run'> = { ...req };
      delete (job as JobRequest).dry_run;
      props.schedule.onSubmit(job, v);
      return;
    }
    dry.mutate(req, { onSuccess: (res) => setPreview({ req, res }) });
  };

  const toRaw = (kind: string) => {
    if (kind !== 'raw') return;
    const cur = form.getFieldsValue();
    if ((cur.raw ?? '').trim()) return;
    const sh = { ...initialValues.shell, ...cur.shell };
    form.setFieldValue('raw', JSON.stringify(shellOperation(sh), null, 2));
  };

  const tokens = balance.data?.tokens;
  const pending = props.schedule ? props.schedule.pending : dry.isPending;

  return (
    <>
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={initialValues}
        onFinish={onFinish}
        disabled={pending}
        style={{ maxWidth: 760 }}
      >
        <FormError error={props.schedule ? props.schedule.error : dry.error} />
        {props.schedule?.fields}
        {!props.schedule && (
          <Form.Item name="name" label={t('jobs.name')} rules={[{ max: 100 }]}>
            <Input data-testid="job-name" maxLength={100} placeholder={t('jobs.namePlaceholder')} />
          </Form.Item>
        )}
        <Card size="small" title={t('jobs.target')} style={{ marginBottom: 16 }}>
          <Form.Item name="targetKind" style={{ marginBottom: 12 }}>
            <Radio.Group
              data-testid="job-target-kind"
              optionType="button"
              options={[
                { value: 'hosts', label: t('jobs.targetKind.hosts') },
                { value: 'tags', label: t('jobs.targetKind.tags') },
                { value: 'filter', label: t('jobs.targetKind.filter') },
              ]}
            />
          </Form.Item>
          {targetKind === 'hosts' && (
            <Form.Item name="hostIds" rules={[{ required: true, type: 'array', min: 1, message: t('jobs.targetHostsRequired') }]}>
              <HostPicker />
            </Form.Item>
          )}
          {targetKind === 'tags' && (
            <Form.Item
              name="tags"
              extra={t('jobs.targetTagsHelp')}
              rules={[{ required: true, type: 'array', min: 1, message: t('jobs.targetTagsRequired') }]}
              getValueFromEvent={(v: string[]) => v}
            >
              <TagSelectField />
            </Form.Item>
          )}
          {targetKind === 'filter' && (
            <Form.Item name="filterId" rules={[{ required: true, message: t('jobs.targetFilterRequired') }]}>
              <Select
                data-testid="job-target-filter"
                aria-label={t('jobs.targetKind.filter')}
                placeholder={t('filters.pick')}
                options={(filters.data?.items ?? []).map((f) => ({ value: f.id, label: f.name }))}
                loading={filters.isPending}
                notFoundContent={t('filters.none')}
              />
            </Form.Item>
          )}
        </Card>
        <Card size="small" title={t('jobs.operation')} style={{ marginBottom: 16 }}>
          <Form.Item name="opKind" style={{ marginBottom: 12 }}>
            <Radio.Group
              data-testid="job-op-kind"
              optionType="button"
              onChange={(e) => toRaw(String(e.target.value))}
              options={[
                { value: 'shell', label: t('jobs.opKind.shell') },
                { value: 'raw', label: t('jobs.opKind.raw') },
              ]}
            />
          </Form.Item>
          {opKind === 'shell' ? (
            <>
              <Form.Item
                name={['shell', 'command']}
                label={t('jobs.command')}
                extra={t('jobs.commandHelp')}
                rules={[{ required: true, whitespace: true, message: t('jobs.commandRequired') }]}
              >
                <Input.TextArea data-testid="job-command" autoSize={{ minRows: 2, maxRows: 10 }} spellCheck={false} className="hg-mono" />
              </Form.Item>
              <div style={{ display: 'flex', gap: 16, flexWrap: 'wrap' }}>
                <Form.Item name={['shell', 'program']} label={t('jobs.program')} style={{ flex: '1 1 200px' }}>
                  <Input data-testid="job-program" spellCheck={false} />
                </Form.Item>
                <Form.Item name={['shell', 'timeout_s']} label={t('jobs.timeout')} style={{ flex: '0 0 160px' }}>
                  <InputNumber data-testid="job-timeout" min={0} max={86400} style={{ width: '100%' }} />
                </Form.Item>
              </div>
            </>
          ) : (
            <Form.Item name="raw" label={t('jobs.raw')} extra={t('jobs.rawHelp')} rules={[{ required: true, message: t('jobs.rawShape') }]}>
              <Input.TextArea data-testid="job-raw" autoSize={{ minRows: 6, maxRows: 20 }} spellCheck={false} className="hg-mono" />
            </Form.Item>
          )}
          {rawError && <Alert type="error" showIcon message={rawError} />}
        </Card>
        <Collapse
          style={{ marginBottom: 16 }}
          items={[
            {
              key: 'options',
              label: t('jobs.options'),
              forceRender: true,
              children: (
                <>
                  <Form.Item name="offline" label={t('jobs.offline')} extra={t('jobs.offlineHelp')}>
                    <Radio.Group
                      data-testid="job-offline"
                      options={[
                        { value: 'skip', label: t('jobs.offline.skip') },
                        { value: 'queue', label: t('jobs.offline.queue') },
                      ]}
                    />
                  </Form.Item>
                  <div style={{ display: 'flex', gap: 16, flexWrap: 'wrap' }}>
                    <Form.Item name="expires_in_s" label={t('jobs.expires')} style={{ flex: '1 1 200px' }} rules={[{ required: true }]}>
                      <InputNumber data-testid="job-expires" min={60} max={604800} style={{ width: '100%' }} />
                    </Form.Item>
                    <Form.Item name="concurrency" label={t('jobs.concurrency')} style={{ flex: '1 1 200px' }} rules={[{ required: true }]}>
                      <InputNumber data-testid="job-concurrency" min={1} max={1000} style={{ width: '100%' }} />
                    </Form.Item>
                  </div>
                  <Form.Item name="notify_url" label={t('jobs.notifyUrl')} extra={t('jobs.notifyUrlHelp')} rules={[{ type: 'url', message: t('jobs.notifyUrlInvalid') }, { max: 2048 }]}>
                    <Input data-testid="job-notify-url" placeholder="https://" />
                  </Form.Item>
                  <Form.Item name="wavesOn" label={t('jobs.waves')} valuePropName="checked" extra={t('jobs.wavesHelp')}>
                    <Switch data-testid="job-waves" />
                  </Form.Item>
                  {wavesOn && (
                    <div style={{ display: 'flex', gap: 16, flexWrap: 'wrap' }}>
                      <Form.Item name="waveSize" label={t('jobs.waveSize')} style={{ flex: '1 1 150px' }} rules={[{ required: true }]}>
                        <InputNumber data-testid="job-wave-size" min={1} max={100000} style={{ width: '100%' }} />
                      </Form.Item>
                      <Form.Item name="wavePause" label={t('jobs.wavePause')} style={{ flex: '1 1 150px' }}>
                        <InputNumber data-testid="job-wave-pause" min={0} max={86400} style={{ width: '100%' }} />
                      </Form.Item>
                      <Form.Item name="waveStopPct" label={t('jobs.waveStop')} style={{ flex: '1 1 150px' }}>
                        <InputNumber data-testid="job-wave-stop" min={0} max={100} style={{ width: '100%' }} />
                      </Form.Item>
                    </div>
                  )}
                </>
              ),
            },
          ]}
        />
        <Button type="primary" htmlType="submit" loading={pending} data-testid={props.schedule ? 'schedule-submit' : 'job-preview'}>
          {props.schedule ? props.schedule.submitText : t('jobs.preview')}
        </Button>
      </Form>
      <Modal
        open={preview !== null}
        title={t('jobs.previewTitle')}
        onCancel={() => setPreview(null)}
        okText={t('jobs.confirm', { count: preview?.res.host_count ?? 0 })}
        cancelText={t('common.cancel')}
        okButtonProps={{ 'data-testid': 'job-confirm', disabled: !preview || preview.res.host_count === 0 }}
        confirmLoading={props.runPending}
        onOk={() => preview && props.onRun?.({ ...preview.req, dry_run: false })}
        destroyOnHidden
      >
        {preview && (
          <div data-testid="job-preview-panel">
            <FormError error={props.runError} />
            <Descriptions column={1} size="small" bordered>
              <Descriptions.Item label={t('jobs.previewHosts')}>
                <span data-testid="job-preview-hosts" data-count={preview.res.host_count}>
                  {fmt.number(preview.res.host_count)}
                </span>
              </Descriptions.Item>
              <Descriptions.Item label={t('jobs.previewCost')}>
                <span data-testid="job-preview-cost" data-tokens={preview.res.max_cost}>
                  {t('jobs.tokens', { tokens: fmt.tokens(preview.res.max_cost) })}
                </span>
              </Descriptions.Item>
              {tokens !== undefined && (
                <Descriptions.Item label={t('jobs.previewBalance')}>{t('jobs.tokens', { tokens: fmt.tokens(tokens) })}</Descriptions.Item>
              )}
            </Descriptions>
            <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
              {t('jobs.previewHelp')}
            </Typography.Paragraph>
            {tokens !== undefined && preview.res.max_cost > tokens && (
              <Alert style={{ marginTop: 12 }} type="warning" showIcon message={t('jobs.previewLowBalance')} />
            )}
          </div>
        )}
      </Modal>
    </>
  );
}

/** TagSelect as a Form control. */
function TagSelectField({ value, onChange }: { value?: string[]; onChange?: (v: string[]) => void }) {
  const { t } = useI18n();
  return <TagSelect testid="job-target-tags" keys value={value ?? []} onChange={(v) => onChange?.(v)} placeholder={t('hosts.tagFilter')} width="100%" />;
}
