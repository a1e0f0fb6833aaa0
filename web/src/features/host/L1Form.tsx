// The host's L1 configuration: bid, secret key (write-only), report URL and
// webhook format. The hub never returns the secret, so the field starts empty.
import { Alert, Button, Card, Form, Input, InputNumber, Select, Typography } from 'antd';
import { useEffect } from 'react';
import type { Host } from '../../api/types';
import { useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';
import { useSaveL1 } from './hooks';

interface Values {
  bid: number | null;
  secret_key: string;
  url: string;
  webhook_format: 'A' | 'B';
}

export const L1_SECRET_LENGTH = 32;

/** "" (no report URL) or an absolute http(s) URL of at most 2048 characters, as the hub accepts. */
function isReportUrl(v: string): boolean {
  const s = v.trim();
  if (!s) return true;
  if (s.length > 2048) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  } catch {
    return false;
  }
}

/** n random bytes as 2n lower-case hexadecimal characters. */
function randomHex(n: number): string {
  const b = crypto.getRandomValues(new Uint8Array(n));
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export function L1Form({ host }: { host: Host }) {
  const { t } = useI18n();
  const [form] = Form.useForm<Values>();
  const save = useSaveL1(host.id);

  // Follow the host's stored values until the user starts editing.
  useEffect(() => {
    if (form.isFieldsTouched()) return;
    form.setFieldsValue({
      bid: host.bid || null,
      url: host.report_url ?? '',
      webhook_format: host.webhook_format,
    });
  }, [form, host.bid, host.report_url, host.webhook_format]);

  const submit = (v: Values) => {
    save.mutate(
      { bid: v.bid ?? 0, secret_key: v.secret_key, url: v.url.trim(), webhook_format: v.webhook_format },
      {
        onSuccess: (r) => {
          form.resetFields();
          form.setFieldsValue({ bid: r.bid || null, url: r.url, webhook_format: r.webhook_format as 'A' | 'B' });
        },
      },
    );
  };

  return (
    <Card title={t('host.l1.title')}>
      <Typography.Paragraph type="secondary" style={{ marginTop: 0 }}>
        {t('host.l1.intro')}
      </Typography.Paragraph>
      {save.isSuccess ? (
        <Alert
          type="success"
          showIcon
          closable
          onClose={() => save.reset()}
          style={{ marginBottom: 16 }}
          message={save.data.agent_online ? t('host.l1.savedOnline') : t('host.l1.savedOffline')}
        />
      ) : null}
      <FormError error={save.error} />
      <Form<Values>
        form={form}
        layout="vertical"
        requiredMark={false}
        onFinish={submit}
        disabled={save.isPending}
        initialValues={{ webhook_format: host.webhook_format, bid: host.bid || null, url: host.report_url ?? '' }}
      >
        <Form.Item
          name="bid"
          label={t('host.l1.bid')}
          rules={[
            { required: true, message: t('host.l1.bidRequired') },
            { type: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER, message: t('host.l1.bidInvalid') },
          ]}
        >
          <InputNumber data-testid="l1-bid" min={1} max={Number.MAX_SAFE_INTEGER} precision={0} style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item
          name="secret_key"
          label={t('host.l1.secret')}
          extra={t('host.l1.secretHint', { n: L1_SECRET_LENGTH })}
          rules={[
            { required: true, message: t('host.l1.secretRequired') },
            { len: L1_SECRET_LENGTH, message: t('host.l1.secretLength', { n: L1_SECRET_LENGTH }) },
            { pattern: /^[0-9a-fA-F]*$/, message: t('host.l1.secretHex') },
          ]}
        >
          <Input.Password
            data-testid="l1-secret"
            autoComplete="new-password"
            maxLength={64}
            showCount={{ formatter: ({ count }) => `${count} / ${L1_SECRET_LENGTH}` }}
          />
        </Form.Item>
        <Form.Item style={{ marginTop: -12 }}>
          <Button
            size="small"
            type="link"
            style={{ paddingInline: 0 }}
            onClick={() => form.setFieldsValue({ secret_key: randomHex(L1_SECRET_LENGTH / 2) })}
          >
            {t('host.l1.generate')}
          </Button>
        </Form.Item>
        <Form.Item
          name="url"
          label={t('host.l1.url')}
          extra={t('host.l1.urlHint')}
          rules={[
            {
              validator: (_r, v: string | undefined) =>
                isReportUrl(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('host.l1.urlInvalid'))),
            },
          ]}
        >
          <Input data-testid="l1-url" placeholder="https://example.com/report" inputMode="url" />
        </Form.Item>
        <Form.Item name="webhook_format" label={t('host.l1.format')} extra={t('host.l1.formatHint')}>
          <Select
            data-testid="l1-format"
            aria-label={t('host.l1.format')}
            options={[
              { value: 'A', label: 'A' },
              { value: 'B', label: 'B' },
            ]}
          />
        </Form.Item>
        <Form.Item style={{ marginBottom: 0 }}>
          <Button type="primary" htmlType="submit" loading={save.isPending} data-testid="l1-save">
            {t('host.l1.save')}
          </Button>
        </Form.Item>
      </Form>
    </Card>
  );
}
