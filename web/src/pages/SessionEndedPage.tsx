import { Result } from 'antd';
import { useSearchParams } from 'react-router';
import { LinkButton } from '../ui/LinkButton';
import { useI18n } from '../i18n';
import { AuthCard } from './AuthCard';

export function SessionEndedPage() {
  const { t } = useI18n();
  const [sp] = useSearchParams();
  const reason = sp.get('reason') === 'suspended' ? 'suspended' : 'ended';
  return (
    <AuthCard title={t(reason === 'suspended' ? 'sessionEnded.suspendedTitle' : 'sessionEnded.title')}>
      <div data-testid="session-ended" data-reason={reason}>
        <Result
          status={reason === 'suspended' ? 'error' : 'info'}
          style={{ padding: '16px 0' }}
          subTitle={t(reason === 'suspended' ? 'sessionEnded.suspended' : 'sessionEnded.ended')}
          extra={
            <LinkButton to="/signin" type="primary">
              {t('sessionEnded.signInAgain')}
            </LinkButton>
          }
        />
      </div>
    </AuthCard>
  );
}
