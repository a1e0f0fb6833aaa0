import { Result } from 'antd';
import { LinkButton } from './LinkButton';
import { useI18n } from '../i18n';

/** The 404 page of either console: `home` is where its button leads, `backKey` the message key of the button's text. */
export function NotFoundPage({ home, backKey }: { home: string; backKey: string }) {
  const { t } = useI18n();
  return (
    <Result
      status="404"
      title={t('notFound.title')}
      subTitle={t('notFound.text')}
      extra={
        <LinkButton to={home} type="primary">
          {t(backKey)}
        </LinkButton>
      }
    />
  );
}
