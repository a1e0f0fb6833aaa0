import { GlobalOutlined } from '@ant-design/icons';
import { Button } from 'antd';
import { useI18n } from '../i18n';

/** Toggles English ⇄ 简体中文; the button names the language it switches to. */
export function LangSwitch({ compact = false }: { compact?: boolean }) {
  const { lang, setLang, t } = useI18n();
  const next = lang === 'en' ? 'zh-CN' : 'en';
  const label = next === 'zh-CN' ? '简体中文' : 'English';
  return (
    <Button
      data-testid="lang-switch"
      icon={<GlobalOutlined />}
      aria-label={t('layout.switchLanguage', { lang: label })}
      lang={next}
      onClick={() => setLang(next)}
    >
      {compact ? null : label}
    </Button>
  );
}
