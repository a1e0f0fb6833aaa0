import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider, Empty } from 'antd';
// The ES modules of antd's locales: antd/locale/* are CommonJS re-exports,
// whose default export the build wraps, and antd would fall back to English.
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import { useEffect } from 'react';
import { RouterProvider } from 'react-router';
import { setMessageInstance } from '../../app/notify';
import { theme } from '../../app/theme';
import { I18nProvider, useI18n } from '../../i18n';
import { adminCatalogs } from '../i18n/messages';
import { adminQueryClient } from './queryClient';
import { adminRouter } from './router';

function MessageBridge() {
  const { message } = AntApp.useApp();
  useEffect(() => {
    setMessageInstance(message);
    return () => setMessageInstance(null);
  }, [message]);
  return null;
}

function Localized() {
  const { lang, t } = useI18n();
  return (
    <ConfigProvider
      locale={lang === 'zh-CN' ? zhCN : enUS}
      theme={theme}
      // The console's own words for an empty table (antd's are generic).
      renderEmpty={() => <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('admin.empty')} />}
    >
      <AntApp>
        <MessageBridge />
        <RouterProvider router={adminRouter} />
      </AntApp>
    </ConfigProvider>
  );
}

/** The admin console: the user console's providers with the admin messages, client and routes. */
export function AdminApp() {
  return (
    <QueryClientProvider client={adminQueryClient}>
      <I18nProvider catalogs={adminCatalogs}>
        <Localized />
      </I18nProvider>
    </QueryClientProvider>
  );
}
