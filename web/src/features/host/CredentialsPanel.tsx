// Install credentials, shown once after create / re-issue / rotate: the
// agent's --config JSON, the one-line install commands, a download of the
// JSON, and a warning that they will not be shown again.
import { DownloadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Typography } from 'antd';
import { useMemo } from 'react';
import type { Credentials } from '../../api/types';
import { useFormat, useI18n } from '../../i18n';
import { CopyButton } from '../../ui/CopyButton';
import { credentialsJson } from './credentials';

export type CredentialsSource = 'created' | 'reissued' | 'rotated';


/** Saves text as a file through a Blob URL (revoked once the download has started). */
function downloadText(text: string, name: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function Block({
  text,
  testId,
  copyTestId,
  label,
  tall,
}: {
  text: string;
  testId: string;
  copyTestId: string;
  label: string;
  tall?: boolean;
}) {
  return (
    <div style={{ marginBottom: 12 }}>
      <Typography.Text strong>{label}</Typography.Text>
      <Flex gap={8} align="start" style={{ marginTop: 4 }}>
        <pre className="hg-secret" data-testid={testId} style={{ flex: 1, minWidth: 0, maxHeight: tall ? 320 : undefined, overflow: 'auto' }} tabIndex={tall ? 0 : undefined}>
          {text}
        </pre>
        <CopyButton text={text} testId={copyTestId} label={label} />
      </Flex>
    </div>
  );
}

export function CredentialsPanel({
  credentials,
  source,
  onDismiss,
}: {
  credentials: Credentials;
  source: CredentialsSource;
  onDismiss: () => void;
}) {
  const { t } = useI18n();
  const fmt = useFormat();
  const json = useMemo(() => credentialsJson(credentials), [credentials]);
  const cmd = credentials.install_command;

  return (
    <Card
      data-testid="credentials-panel"
      title={t(`host.creds.title.${source}`)}
      style={{ borderColor: '#faad14' }}
      extra={
        <Button onClick={onDismiss} data-testid="credentials-dismiss">
          {t('host.creds.dismiss')}
        </Button>
      }
    >
      <Alert
        type="warning"
        showIcon
        role="alert"
        style={{ marginBottom: 16 }}
        message={t('host.creds.shownOnce')}
        description={t('host.creds.expires', { time: fmt.dateTime(credentials.install_token_expires_at) })}
      />
      {cmd?.powershell ? (
        <Block
          label={t('host.creds.powershell')}
          text={cmd.powershell}
          testId="install-command-powershell"
          copyTestId="copy-install-command-powershell"
        />
      ) : null}
      {cmd?.shell ? (
        <Block
          label={t('host.creds.shell')}
          text={cmd.shell}
          testId="install-command-shell"
          copyTestId="copy-install-command-shell"
        />
      ) : null}
      <Block label={t('host.creds.json')} text={json} testId="credentials-json" copyTestId="copy-credentials-json" tall />
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t('host.creds.jsonHint')}
      </Typography.Paragraph>
      <Flex gap={8} wrap="wrap">
        <Button
          icon={<DownloadOutlined />}
          onClick={() => downloadText(json + '\n', 'credentials.json')}
          data-testid="credentials-download"
        >
          {t('host.creds.download')}
        </Button>
        <Button type="primary" onClick={onDismiss}>
          {t('host.creds.stored')}
        </Button>
      </Flex>
    </Card>
  );
}
