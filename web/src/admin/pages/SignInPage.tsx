import { Button, Form, Input, Typography } from 'antd';
import { useNavigate, useSearchParams } from 'react-router';
import { useI18n } from '../../i18n';
import { AuthCard } from '../../pages/AuthCard';
import { FormError } from '../../ui/FormError';
import { safeAdminNext } from '../app/sessionTarget';
import { useAdminSignIn } from '../hooks';

/** The admin sign-in: username and password; no sign-up and no link to the customer pages. */
export function AdminSignInPage() {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [sp] = useSearchParams();
  const signIn = useAdminSignIn();
  return (
    <AuthCard title={t('admin.signin.title')}>
      <Typography.Paragraph type="secondary">{t('admin.signin.lead')}</Typography.Paragraph>
      <Form<{ username: string; password: string }>
        layout="vertical"
        requiredMark={false}
        disabled={signIn.isPending}
        onFinish={(v) =>
          signIn.mutate(
            { username: v.username.trim(), password: v.password },
            { onSuccess: () => void navigate(safeAdminNext(sp.get('next')), { replace: true }) },
          )
        }
      >
        <FormError error={signIn.error} />
        <Form.Item
          name="username"
          label={t('admin.signin.username')}
          rules={[{ required: true, whitespace: true, message: t('admin.signin.usernameRequired') }]}
        >
          <Input data-testid="admin-signin-username" autoComplete="username" autoFocus />
        </Form.Item>
        <Form.Item
          name="password"
          label={t('auth.password')}
          rules={[{ required: true, message: t('auth.passwordRequired') }]}
        >
          <Input.Password data-testid="admin-signin-password" autoComplete="current-password" />
        </Form.Item>
        <Button type="primary" htmlType="submit" block loading={signIn.isPending} data-testid="admin-signin-submit">
          {t('auth.signIn')}
        </Button>
      </Form>
    </AuthCard>
  );
}
