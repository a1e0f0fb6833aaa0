import { Result } from 'antd';
import { LinkButton } from '../ui/LinkButton';
import { useI18n } from '../i18n';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <Result
      status="404"
      title={t('notFound.title')}
      subTitle={t('notFound.text')}
      extra={
        <LinkButton to="/hosts" type="primary">
          {t('notFound.back')}
        </LinkButton>
      }
    />
  );
}
