import { Button, Result } from 'antd';
import { useI18n } from '../i18n';
import { PageTooDeepError } from '../lib/cursorPages';
import { useErrorText } from './useErrorText';

/**
 * A failed load: the error's message and a retry button. A page too deep
 * to open is not a failure: it says so under its own heading.
 */
export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useI18n();
  const text = useErrorText();
  return (
    <Result
      status={error instanceof PageTooDeepError ? 'info' : 'warning'}
      title={t(error instanceof PageTooDeepError ? 'paging.tooDeepTitle' : 'common.loadFailed')}
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
