import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { Button, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n';

/** Copies `text` to the clipboard; the icon turns into a tick for a moment. */
export function CopyButton({ text, label, testId }: { text: string; label?: string; testId?: string }) {
  const { t } = useI18n();
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (!done) return;
    const id = setTimeout(() => setDone(false), 1500);
    return () => clearTimeout(id);
  }, [done]);
  const name = label ?? t('common.copy');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      fallbackCopy(text);
    }
    setDone(true);
  };
  return (
    <Tooltip title={done ? t('common.copied') : name}>
      <Button
        aria-label={name}
        data-testid={testId}
        icon={done ? <CheckOutlined /> : <CopyOutlined />}
        onClick={() => void copy()}
      />
    </Tooltip>
  );
}

// Pages served over plain http (not localhost) have no navigator.clipboard.
function fallbackCopy(text: string) {
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  try {
    document.execCommand('copy');
  } finally {
    ta.remove();
  }
}
