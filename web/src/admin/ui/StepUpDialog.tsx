// The step-up prompt: the admin's password asked again before a sensitive
// change (billing mode, granting owner). It gets a single-use token from
// POST /v1/admin/auth/step-up and hands it to onConfirmed, which makes the
// change with the X-Step-Up-Token header; errors of either step show inline.
import { Alert, Form, Input, Modal } from 'antd';
import { useState, type ReactNode } from 'react';
import { useI18n } from '../../i18n';
import { FormError } from '../../ui/FormError';
import { stepUp } from '../hooks';

export function StepUpDialog({
  open,
  title,
  children,
  okText,
  onCancel,
  onConfirmed,
}: {
  open: boolean;
  title: ReactNode;
  children?: ReactNode;
  okText?: string;
  onCancel: () => void;
  /** Makes the change with the step-up token; a rejection keeps the dialog open with the error. */
  onConfirmed: (token: string) => Promise<unknown>;
}) {
  const { t } = useI18n();
  const [form] = Form.useForm<{ password: string }>();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async ({ password }: { password: string }) => {
    setPending(true);
    setError(null);
    try {
      const token = await stepUp(password);
      await onConfirmed(token);
      form.resetFields();
    } catch (err) {
      setError(err);
    } finally {
      setPending(false);
    }
  };

  return (
    <Modal
      open={open}
      title={title}
      okText={okText ?? t('admin.stepUp.confirm')}
      cancelText={t('common.cancel')}
      confirmLoading={pending}
      okButtonProps={{ 'data-testid': 'stepup-submit' }}
      onOk={() => form.submit()}
      onCancel={() => {
        form.resetFields();
        setError(null);
        onCancel();
      }}
      destroyOnHidden
    >
      {children}
      <Alert type="info" showIcon style={{ margin: '12px 0' }} message={t('admin.stepUp.why')} />
      <FormError error={error} />
      <Form form={form} layout="vertical" requiredMark={false} onFinish={(v) => void submit(v)} disabled={pending}>
        <Form.Item
          name="password"
          label={t('admin.stepUp.password')}
          rules={[{ required: true, message: t('auth.passwordRequired') }]}
        >
          <Input.Password data-testid="stepup-password" autoComplete="current-password" autoFocus />
        </Form.Item>
      </Form>
    </Modal>
  );
}
