import { Alert, Button, Flex, Form, Input, Modal } from 'antd';
import type { ApiKeyCreated } from '../api/types';
import { useCreateApiKey } from '../hooks/apiKeys';
import { useI18n } from '../i18n';
import { CopyButton } from '../ui/CopyButton';
import { FormError } from '../ui/FormError';

/** Asks for a key's name and creates it. */
export function CreateApiKeyDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean;
  onClose: () => void;
  onCreated: (k: ApiKeyCreated) => void;
}) {
  const { t } = useI18n();
  const [form] = Form.useForm<{ name: string }>();
  const create = useCreateApiKey();
  const close = () => {
    onClose();
    create.reset();
  };
  return (
    <Modal open={open} title={t('apiKeys.createTitle')} onCancel={close} footer={null} destroyOnHidden>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        disabled={create.isPending}
        onFinish={(v) =>
          create.mutate(v.name.trim(), {
            onSuccess: (k) => {
              form.resetFields();
              onCreated(k);
            },
          })
        }
      >
        <FormError error={create.error} />
        <Form.Item
          name="name"
          label={t('apiKeys.name')}
          rules={[{ required: true, whitespace: true, message: t('apiKeys.nameRequired') }]}
        >
          <Input data-testid="apikey-name" placeholder={t('apiKeys.namePlaceholder')} maxLength={128} autoFocus />
        </Form.Item>
        <Form.Item style={{ marginBottom: 0, textAlign: 'right' }}>
          <Button onClick={close} style={{ marginRight: 8 }}>
            {t('common.cancel')}
          </Button>
          <Button type="primary" htmlType="submit" loading={create.isPending} data-testid="apikey-create-submit">
            {t('apiKeys.createSubmit')}
          </Button>
        </Form.Item>
      </Form>
    </Modal>
  );
}

/** Shows a new key's secret once, with a copy button and a warning. */
export function ApiKeySecretDialog({ created, onDone }: { created: ApiKeyCreated | null; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <Modal
      open={created !== null}
      title={t('apiKeys.secretTitle')}
      onCancel={onDone}
      maskClosable={false}
      footer={
        <Button type="primary" data-testid="apikey-secret-done" onClick={onDone}>
          {t('apiKeys.secretDone')}
        </Button>
      }
    >
      {created && (
        <>
          <Alert type="warning" showIcon message={t('apiKeys.secretWarning')} style={{ marginBottom: 12 }} />
          <Flex gap={8} align="start">
            <pre className="hg-secret" data-testid="apikey-secret" style={{ flex: 1 }}>
              {created.secret}
            </pre>
            <CopyButton text={created.secret} testId="copy-apikey-secret" />
          </Flex>
        </>
      )}
    </Modal>
  );
}
