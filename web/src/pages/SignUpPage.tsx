import { Typography } from 'antd';
import { Link, useNavigate } from 'react-router';
import { useSignUp } from '../hooks/session';
import { useI18n } from '../i18n';
import { AuthCard } from './AuthCard';
import { CredentialsForm } from './CredentialsForm';

export function SignUpPage() {
  const { t } = useI18n();
  const navigate = useNavigate();
  const signUp = useSignUp();
  return (
    <AuthCard title={t('auth.signUpTitle')}>
      <CredentialsForm
        prefix="signup"
        submitText={t('auth.signUp')}
        pending={signUp.isPending}
        error={signUp.error}
        newPassword
        // Registering answers with a session, so go straight in.
        onSubmit={(v) => signUp.mutate(v, { onSuccess: () => void navigate('/hosts', { replace: true }) })}
      />
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        {t('auth.haveAccount')}{' '}
        <Link to="/signin" data-testid="goto-signin">
          {t('auth.signIn')}
        </Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
