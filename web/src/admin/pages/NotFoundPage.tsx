import { Result } from 'antd';
import { useI18n } from '../../i18n';
import { LinkButton } from '../../ui/LinkButton';

export function AdminNotFoundPage() {
  const { t } = useI18n();
  return (
    <Result
      status="404"
      title={t('notFound.title')}
      subTitle={t('notFound.text')}
      extra={
        <LinkButton to="/admin" type="primary">
          {t('admin.notFound.back')}
        </LinkButton>
      }
    />
  );
}
