import { useCallback } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { useI18n } from '../i18n';

/** Words for an error: the hub's message, or the console's own text when the hub could not be reached. */
export function useErrorText(): (err: unknown) => string {
  const { t } = useI18n();
  return useCallback(
    (err: unknown) => (err instanceof ApiError && err.code === 'network' ? t('common.network') : errorMessage(err)),
    [t],
  );
}
