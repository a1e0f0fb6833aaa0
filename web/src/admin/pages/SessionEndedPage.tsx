import { Result } from 'antd';
import { useI18n } from '../../i18n';
import { AuthCard } from '../../pages/AuthCard';
import { LinkButton } from '../../ui/LinkButton';

/** Where the console lands when the admin session ends (signed out elsewhere, disabled, role changed). */
export function AdminSessionEndedPage() {
  const { t } = useI18n();
  return (
    <AuthCard title={t('admin.sessionEnded.title')}>
      <div data-testid="admin-session-ended">
        <Result
          status="info"
          style={{ padding: '16px 0' }}
          subTitle={t('admin.sessionEnded.text')}
          extra={
            <LinkButton to="/admin/signin" type="primary">
              {t('sessionEnded.signInAgain')}
            </LinkButton>
          }
        />
      </div>
    </AuthCard>
  );
}
