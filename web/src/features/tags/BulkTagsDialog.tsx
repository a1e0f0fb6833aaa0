import { Alert, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useBulkTags } from '../../hooks/tags';
import { useI18n } from '../../i18n';
import { isTagKey, textsToTags } from '../../lib/tags';
import { FormError } from '../../ui/FormError';
import { TagSelect } from './TagSelect';

/**
 * Adds tags to, or removes tag keys from, a selection of hosts in one call
 * (POST /v1/user/hosts/tags). Mount it only while open.
 */
export function BulkTagsDialog({ mode, hostIds, onClose, onDone }: { mode: 'add' | 'remove'; hostIds: string[]; onClose: () => void; onDone: () => void }) {
  const { t } = useI18n();
  const [texts, setTexts] = useState<string[]>([]);
  const bulk = useBulkTags();
  const parsed = textsToTags(texts);
  const badKeys = mode === 'remove' ? texts.filter((k) => !isTagKey(k)) : [];
  const problem =
    mode === 'add' && parsed.invalid.length
      ? t('tags.invalid', { tags: parsed.invalid.join(', ') })
      : mode === 'add' && parsed.duplicate.length
        ? t('tags.duplicate', { keys: parsed.duplicate.join(', ') })
        : badKeys.length
          ? t('tags.invalid', { tags: badKeys.join(', ') })
          : '';
  const submit = () => {
    const body = mode === 'add' ? { host_ids: hostIds, add: parsed.tags } : { host_ids: hostIds, remove: texts };
    bulk.mutate(body, {
      onSuccess: () => {
        onDone();
        onClose();
      },
    });
  };
  return (
    <Modal
      open
      title={t(mode === 'add' ? 'tags.addTitle' : 'tags.removeTitle', { count: hostIds.length })}
      onCancel={onClose}
      okText={t(mode === 'add' ? 'tags.add' : 'tags.remove')}
      cancelText={t('common.cancel')}
      okButtonProps={{ 'data-testid': 'tags-bulk-submit', disabled: Boolean(problem) || texts.length === 0, danger: mode === 'remove' }}
      confirmLoading={bulk.isPending}
      onOk={submit}
      destroyOnHidden
    >
      <FormError error={bulk.error} />
      <Typography.Paragraph type="secondary">{t(mode === 'add' ? 'tags.addHelp' : 'tags.removeHelp')}</Typography.Paragraph>
      <TagSelect
        testid="tags-bulk-input"
        value={texts}
        onChange={setTexts}
        placeholder={t(mode === 'add' ? 'tags.placeholder' : 'tags.keysPlaceholder')}
        keysOnly={mode === 'remove'}
        width="100%"
        autoFocus
      />
      {problem && <Alert style={{ marginTop: 12 }} type="warning" showIcon message={problem} />}
    </Modal>
  );
}
