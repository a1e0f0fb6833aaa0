import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { App as AntApp, ConfigProvider, type ConfigProviderProps } from 'antd';
// The ES modules of antd's locales: antd/locale/* are CommonJS re-exports,
// whose default export the build wraps, and antd would fall back to English.
import enUS from 'antd/es/locale/en_US';
import zhCN from 'antd/es/locale/zh_CN';
import { useEffect, type ComponentProps } from 'react';
import { RouterProvider } from 'react-router';
import { I18nProvider, useI18n, type Lang, type Messages } from '../i18n';
import { setMessageInstance } from './notify';
import { theme } from './theme';

function MessageBridge() {
  const { message } = AntApp.useApp();
  useEffect(() => {
    setMessageInstance(message);
    return () => setMessageInstance(null);
  }, [message]);
  return null;
}

interface ConsoleRootProps {
  client: QueryClient;
  router: ComponentProps<typeof RouterProvider>['router'];
  /** The console's messages (the user console's when left out). */
  catalogs?: Record<Lang, Messages>;
  /** antd's empty-table content, given the translator (antd's own when left out). */
  renderEmpty?: (t: ReturnType<typeof useI18n>['t']) => ReturnType<NonNullable<ConfigProviderProps['renderEmpty']>>;
}

function Localized({ router, renderEmpty }: Pick<ConsoleRootProps, 'router' | 'renderEmpty'>) {
  const { lang, t } = useI18n();
  return (
    <ConfigProvider
      locale={lang === 'zh-CN' ? zhCN : enUS}
      theme={theme}
      {...(renderEmpty ? { renderEmpty: () => renderEmpty(t) } : {})}
    >
      <AntApp>
        <MessageBridge />
        <RouterProvider router={router} />
      </AntApp>
    </ConfigProvider>
  );
}

/** Either console's providers: its query client, messages, antd's locale and theme, and its routes. */
export function ConsoleRoot({ client, router, catalogs, renderEmpty }: ConsoleRootProps) {
  return (
    <QueryClientProvider client={client}>
      <I18nProvider catalogs={catalogs}>
        <Localized router={router} renderEmpty={renderEmpty} />
      </I18nProvider>
    </QueryClientProvider>
  );
}
