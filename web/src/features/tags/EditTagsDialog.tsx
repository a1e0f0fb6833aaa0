import { Alert, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useSetHostTags } from '../../hooks/tags';
import { useI18n } from '../../i18n';
import { MAX_TAGS_PER_HOST, tagsToTexts, textsToTags, type Tags } from '../../lib/tags';
import { FormError } from '../../ui/FormError';
import { TagSelect } from './TagSelect';

/** Replaces one host's tags (PUT /v1/user/hosts/{id}/tags). Mount it only while open. */
export function EditTagsDialog({ host, onClose }: { host: { id: string; name: string; tags: Tags }; onClose: () => void }) {
  const { t } = useI18n();
  const [texts, setTexts] = useState(() => tagsToTexts(host.tags));
  const save = useSetHostTags();
  const parsed = textsToTags(texts);
  const count = Object.keys(parsed.tags).length;
  const problem =
    parsed.invalid.length > 0
      ? t('tags.invalid', { tags: parsed.invalid.join(', ') })
      : parsed.duplicate.length > 0
        ? t('tags.duplicate', { keys: parsed.duplicate.join(', ') })
        : count > MAX_TAGS_PER_HOST
          ? t('tags.tooMany', { max: MAX_TAGS_PER_HOST })
          : '';
  return (
    <Modal
      open
      title={t('tags.editTitle', { name: host.name })}
      onCancel={onClose}
      okText={t('common.save')}
      cancelText={t('common.cancel')}
      okButtonProps={{ 'data-testid': 'tags-save', disabled: Boolean(problem) }}
      confirmLoading={save.isPending}
      onOk={() => save.mutate({ hostId: host.id, tags: parsed.tags }, { onSuccess: onClose })}
      destroyOnHidden
    >
      <FormError error={save.error} />
      <Typography.Paragraph type="secondary">{t('tags.help')}</Typography.Paragraph>
      <TagSelect testid="tags-input" value={texts} onChange={setTexts} placeholder={t('tags.placeholder')} width="100%" autoFocus />
      {problem && <Alert style={{ marginTop: 12 }} type="warning" showIcon message={problem} />}
    </Modal>
  );
}
