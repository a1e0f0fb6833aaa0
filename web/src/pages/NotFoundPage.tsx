import { Button, Result } from 'antd';
import { Link } from 'react-router';
import { useI18n } from '../i18n';

export function NotFoundPage() {
  const { t } = useI18n();
  return (
    <Result
      status="404"
      title={t('notFound.title')}
      subTitle={t('notFound.text')}
      extra={
        <Link to="/hosts">
          <Button type="primary">{t('notFound.back')}</Button>
        </Link>
      }
    />
  );
}
