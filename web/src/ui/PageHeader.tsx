import { Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useDocumentTitle } from './useDocumentTitle';

/** A page's title row with optional actions on the right (they wrap under the title on a phone). */
export function PageHeader({ title, extra }: { title: ReactNode; extra?: ReactNode }) {
  useDocumentTitle(typeof title === 'string' ? title : undefined);
  return (
    <Flex justify="space-between" align="center" wrap="wrap" gap={12} style={{ marginBottom: 16 }}>
      <Typography.Title level={3} style={{ margin: 0 }}>
        {title}
      </Typography.Title>
      {extra ? <Flex gap={8} wrap="wrap">{extra}</Flex> : null}
    </Flex>
  );
}
