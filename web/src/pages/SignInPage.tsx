import { Typography } from 'antd';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useSignIn } from '../hooks/session';
import { useI18n } from '../i18n';
import { safeNext } from '../lib/nav';
import { AuthCard } from './AuthCard';
import { CredentialsForm } from './CredentialsForm';


export function SignInPage() {
  const { t } = useI18n();
  const navigate = useNavigate();
  const [sp] = useSearchParams();
  const signIn = useSignIn();
  return (
    <AuthCard title={t('auth.signInTitle')}>
      <CredentialsForm
        prefix="signin"
        submitText={t('auth.signIn')}
        pending={signIn.isPending}
        error={signIn.error}
        onSubmit={(v) => signIn.mutate(v, { onSuccess: () => void navigate(safeNext(sp.get('next')), { replace: true }) })}
      />
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        {t('auth.noAccount')}{' '}
        <Link to="/signup" data-testid="goto-signup">
          {t('auth.signUp')}
        </Link>
      </Typography.Paragraph>
    </AuthCard>
  );
}
