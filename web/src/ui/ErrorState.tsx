import { Button, Result } from 'antd';
import { useI18n } from '../i18n';
import { useErrorText } from './useErrorText';

/** A failed load: the error's message and a retry button. */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  const text = useErrorText();
  return (
    <Result
      status="warning"
      title={t('common.loadFailed')}
      subTitle={text(error)}
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
