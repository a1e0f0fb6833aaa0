export { I18nProvider } from './I18nProvider';
export { useI18n, useFormat, type I18n } from './context';
export { LANGS, type Lang, type Messages } from './messages';
