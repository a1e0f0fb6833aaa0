import { Button, Form, Input } from 'antd';
import { useI18n } from '../i18n';
import { FormError } from '../ui/FormError';

export interface CredentialsValues {
  email: string;
  password: string;
}

/** Email + password form shared by sign-in (prefix "signin") and sign-up (prefix "signup"). */
export function CredentialsForm({
  prefix,
  submitText,
  pending,
  error,
  newPassword,
  onSubmit,
}: {
  prefix: 'signin' | 'signup';
  submitText: string;
  pending: boolean;
  error: unknown;
  newPassword?: boolean;
  onSubmit: (v: CredentialsValues) => void;
}) {
  const { t } = useI18n();
  return (
    <Form<CredentialsValues> layout="vertical" requiredMark={false} onFinish={onSubmit} disabled={pending}>
      <FormError error={error} />
      <Form.Item
        name="email"
        label={t('auth.email')}
        rules={[
          { required: true, message: t('auth.emailRequired') },
          { type: 'email', message: t('auth.emailInvalid') },
        ]}
      >
        <Input data-testid={`${prefix}-email`} autoComplete="email" inputMode="email" autoFocus />
      </Form.Item>
      <Form.Item
        name="password"
        label={t('auth.password')}
        rules={[{ required: true, message: t('auth.passwordRequired') }]}
        extra={newPassword ? t('auth.passwordHint') : undefined}
      >
        <Input.Password
          data-testid={`${prefix}-password`}
          autoComplete={newPassword ? 'new-password' : 'current-password'}
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" block loading={pending} data-testid={`${prefix}-submit`}>
        {submitText}
      </Button>
    </Form>
  );
}
