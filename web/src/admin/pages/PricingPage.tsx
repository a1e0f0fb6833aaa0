// Pricing rules (edit a price — effective at once —, add a rule, show the
// expired ones) and the billing mode, switched through the step-up prompt.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Descriptions, Flex, Form, Grid, Input, Switch, Tag, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useState } from 'react';
import { useFormat, useI18n } from '../../i18n';
import { ErrorState } from '../../ui/ErrorState';
import { PageHeader } from '../../ui/PageHeader';
import { adminApi, seg } from '../api';
import { stepUpHeader } from '../hooks';
import { codeProblem, priceProblem, rule } from '../lib/validate';
import { aqk } from '../queryKeys';
import { useAdmin } from '../session';
import type { BillingMode, BillingModeName, PricingRule, PricingRules } from '../types';
import { QueryTable } from '../ui/QueryTable';
import { FormModal } from '../ui/FormModal';
import { rowProps } from '../ui/rows';
import { StepUpDialog } from '../ui/StepUpDialog';

interface RuleForm {
  code?: string;
  token_amount: string;
  description?: string;
}

function RuleDialog({ rule: editing, adding, onClose }: { rule: PricingRule | null; adding: boolean; onClose: () => void }) {
  const { t } = useI18n();
  const qc = useQueryClient();
  const [form] = Form.useForm<RuleForm>();
  const save = useMutation({
    mutationFn: (v: RuleForm) => {
      const body = { token_amount: Number(v.token_amount.trim()), description: v.description?.trim() ?? '' };
      return editing
        ? adminApi.put<PricingRule>(`/v1/admin/pricing-rules/${seg(editing.id)}`, body)
        : adminApi.post<PricingRule>('/v1/admin/pricing-rules', { ...body, code: v.code?.trim() });
    },
    meta: { errorShownInline: true },
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: aqk.pricing.all });
      onClose();
    },
  });
  const open = adding || editing !== null;
  return (
    <FormModal<RuleForm>
      open={open}
      title={editing ? t('admin.pricing.editTitle', { code: editing.code }) : t('admin.pricing.addTitle')}
      onCancel={onClose}
      okText={t('common.save')}
      okTestId="pricing-save"
      pending={save.isPending}
      error={save.error}
      form={form}
      initialValues={
        editing
          ? { token_amount: String(editing.token_amount), description: editing.description ?? '' }
          : { token_amount: '', description: '', code: '' }
      }
      onFinish={(v) => save.mutate(v)}
    >
      {!editing && (
        <Form.Item name="code" label={t('admin.pricing.code')} rules={[rule(codeProblem, t)]} extra={t('admin.pricing.codeHint')}>
          <Input data-testid="pricing-code" autoComplete="off" />
        </Form.Item>
      )}
      <Form.Item
        name="token_amount"
        label={t('admin.pricing.price')}
        rules={[rule(priceProblem, t)]}
        extra={editing ? t('admin.pricing.effectiveAtOnce') : undefined}
      >
        <Input data-testid="pricing-token-amount" inputMode="decimal" autoComplete="off" />
      </Form.Item>
      <Form.Item name="description" label={t('admin.pricing.description')}>
        <Input data-testid="pricing-description" maxLength={200} autoComplete="off" />
      </Form.Item>
    </FormModal>
  );
}

function BillingModeCard() {
  const { t } = useI18n();
  const { can } = useAdmin();
  const qc = useQueryClient();
  const [asking, setAsking] = useState(false);
  const q = useQuery({
    queryKey: aqk.pricing.mode,
    queryFn: ({ signal }) => adminApi.get<BillingMode>('/v1/admin/billing/mode', undefined, signal),
  });
  const mode = q.data?.mode;
  const next: BillingModeName = mode === 'charging' ? 'free' : 'charging';
  return (
    <Card
      id="billing-mode"
      size="small"
      title={t('admin.billing.title')}
      style={{ marginBottom: 16 }}
      extra={
        can('billing.mode') && mode ? (
          <Button data-testid="billing-mode-switch" danger={next === 'free'} onClick={() => setAsking(true)}>
            {t(`admin.billing.switchTo.${next}`)}
          </Button>
        ) : null
      }
    >
      {q.isError && !q.data ? (
        <ErrorState error={q.error} onRetry={() => void q.refetch()} />
      ) : (
        <Descriptions size="small" column={{ xs: 1, md: 3 }}>
          <Descriptions.Item label={t('admin.billing.mode')}>
            <Tag color={mode === 'charging' ? 'green' : 'blue'} data-testid="billing-mode" data-mode={mode ?? ''}>
              {mode ? t(`admin.billing.mode.${mode}`) : '…'}
            </Tag>
          </Descriptions.Item>
          <Descriptions.Item label={t('admin.billing.rules')}>{q.data?.rules_total ?? '…'}</Descriptions.Item>
          <Descriptions.Item label={t('admin.billing.paused')}>{q.data?.rules_paused ?? '…'}</Descriptions.Item>
        </Descriptions>
      )}
      <Typography.Paragraph type="secondary" style={{ margin: '8px 0 0' }}>
        {t('admin.billing.explain')}
      </Typography.Paragraph>
      <StepUpDialog
        open={asking}
        title={t(`admin.billing.switchTo.${next}`)}
        okText={t(`admin.billing.switchTo.${next}`)}
        onCancel={() => setAsking(false)}
        onConfirmed={async (token) => {
          const r = await adminApi.post<BillingMode>('/v1/admin/billing/mode', { mode: next }, stepUpHeader(token));
          qc.setQueryData(aqk.pricing.mode, r);
          void qc.invalidateQueries({ queryKey: aqk.summary });
          setAsking(false);
        }}
      >
        <Typography.Paragraph>{t(`admin.billing.switchText.${next}`)}</Typography.Paragraph>
      </StepUpDialog>
    </Card>
  );
}

export default function PricingPage() {
  const { t } = useI18n();
  const fmt = useFormat();
  const { can } = useAdmin();
  const [expired, setExpired] = useState(false);
  const [editing, setEditing] = useState<PricingRule | null>(null);
  const [adding, setAdding] = useState(false);
  const q = useQuery({
    queryKey: aqk.pricing.rules(expired),
    queryFn: ({ signal }) =>
      adminApi.get<PricingRules>('/v1/admin/pricing-rules', expired ? { include_expired: true } : undefined, signal),
  });
  const writer = can('pricing.write');

  const phone = !Grid.useBreakpoint().md;
  const stateTag = (v: boolean) => (
    <Tag color={v ? 'green' : 'default'}>{v ? t('admin.pricing.inForce') : t('admin.pricing.expired')}</Tag>
  );
  // A phone gets one column with the code, its price and its state, so the
  // price is never scrolled out of sight.
  const phoneColumns: ColumnsType<PricingRule> = [
    {
      title: t('admin.pricing.rule'),
      key: 'rule',
      render: (_: unknown, r) => (
        <Flex vertical gap={2}>
          <code style={{ fontSize: 12, wordBreak: 'break-all' }}>{r.code}</code>
          <Flex gap={8} align="center">
            <strong data-testid="pricing-amount">{fmt.tokens(r.token_amount)}</strong>
            {stateTag(r.effective)}
          </Flex>
        </Flex>
      ),
    },
  ];
  const columns: ColumnsType<PricingRule> = phone ? phoneColumns : [
    { title: t('admin.pricing.code'), dataIndex: 'code', render: (v: string) => <code>{v}</code> },
    {
      title: t('admin.pricing.price'),
      dataIndex: 'token_amount',
      align: 'right',
      render: (v: number) => <span data-testid="pricing-amount">{fmt.tokens(v)}</span>,
    },
    {
      title: t('admin.pricing.state'),
      dataIndex: 'effective',
      render: (v: boolean) => stateTag(v),
    },
    { responsive: ['md'], title: t('admin.pricing.description'), dataIndex: 'description' },
    {
      responsive: ['md'],
      title: t('admin.pricing.from'),
      dataIndex: 'valid_from',
      render: (v: string) => (Date.parse(v) <= 0 ? t('admin.pricing.always') : fmt.dateTime(v)),
    },
    { responsive: ['md'], title: t('admin.pricing.until'), dataIndex: 'valid_until', render: (v?: string) => fmt.dateTime(v) },
  ];
  if (writer) {
    columns.push({
      title: t('common.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_: unknown, r) =>
        r.effective ? (
          <Button size="small" data-testid="pricing-edit" onClick={() => setEditing(r)}>
            {t('admin.pricing.edit')}
          </Button>
        ) : null,
    });
  }

  return (
    <>
      <PageHeader
        title={t('admin.nav.pricing')}
        extra={
          writer ? (
            <Button type="primary" data-testid="pricing-add" onClick={() => setAdding(true)}>
              {t('admin.pricing.add')}
            </Button>
          ) : null
        }
      />
      <BillingModeCard />
      <Flex gap={8} align="center" style={{ marginBottom: 12 }}>
        <Switch data-testid="pricing-show-expired" checked={expired} onChange={setExpired} id="pricing-expired" />
        <label htmlFor="pricing-expired">{t('admin.pricing.showExpired')}</label>
      </Flex>
      <QueryTable<PricingRule>
        query={q}
        testid="pricing-table"
        columns={columns}
        scroll={phone ? undefined : { x: 'max-content' }}
        onRow={(r) => ({ ...rowProps('pricing', r.id), 'data-code': r.code } as ReturnType<typeof rowProps>)}
        pagination={false}
      />
      <RuleDialog
        rule={editing}
        adding={adding}
        onClose={() => {
          setEditing(null);
          setAdding(false);
        }}
      />
    </>
  );
}
