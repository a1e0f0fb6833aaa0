import { QueryClientProvider } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider } from 'antd';
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import { useEffect } from 'react';
import { RouterProvider } from 'react-router';
import { I18nProvider, useI18n } from '../i18n';
import { setMessageInstance } from './notify';
import { queryClient } from './queryClient';
import { router } from './router';
import { theme } from './theme';

function MessageBridge() {
  const { message } = AntApp.useApp();
  useEffect(() => {
    setMessageInstance(message);
    return () => setMessageInstance(null);
  }, [message]);
  return null;
}

function Localized() {
  const { lang } = useI18n();
  return (
    <ConfigProvider locale={lang === 'zh-CN' ? zhCN : enUS} theme={theme}>
      <AntApp>
        <MessageBridge />
        <RouterProvider router={router} />
      </AntApp>
    </ConfigProvider>
  );
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider>
        <Localized />
      </I18nProvider>
    </QueryClientProvider>
  );
}
