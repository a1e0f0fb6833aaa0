import { Empty } from 'antd';
import { ConsoleRoot } from '../../app/ConsoleRoot';
import { adminCatalogs } from '../i18n/messages';
import { adminQueryClient } from './queryClient';
import { adminRouter } from './router';

/** The admin console: the user console's providers with the admin messages, client and routes. */
export function AdminApp() {
  return (
    <ConsoleRoot
      client={adminQueryClient}
      router={adminRouter}
      catalogs={adminCatalogs}
      // The console's own words for an empty table (antd's are generic).
      renderEmpty={(t) => <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('admin.empty')} />}
    />
  );
}
