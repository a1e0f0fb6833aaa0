import { Card, Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { LangSwitch } from '../app/LangSwitch';
import { useDocumentTitle } from '../ui/useDocumentTitle';

/** The centred card the sign-in, sign-up and session-ended pages share. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  useDocumentTitle(title);
  return (
    <main className="hg-auth">
      <Card className="hg-auth-card">
        <Flex justify="space-between" align="center" style={{ marginBottom: 8 }}>
          <span className="hg-brand" style={{ color: '#001529' }}>
            hostgate
          </span>
          <LangSwitch compact />
        </Flex>
        <Typography.Title level={3} style={{ marginTop: 8 }}>
          {title}
        </Typography.Title>
        {children}
      </Card>
    </main>
  );
}
