import { Button, Result } from 'antd';
import { errorMessage } from '../api/client';
import { useI18n } from '../i18n';

/** A failed load: the error's message and a retry button. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  return (
    <Result
      status="warning"
      title={t('common.loadFailed')}
      subTitle={errorMessage(error)}
      extra={
        onRetry ? (
          <Button type="primary" onClick={onRetry}>
            {t('common.retry')}
          </Button>
        ) : null
      }
    />
  );
}
