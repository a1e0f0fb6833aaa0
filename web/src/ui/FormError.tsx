import { Alert } from 'antd';
import { useErrorText } from './useErrorText';

/** A form's error line: the API's `message`, in words (testid form-error). Renders nothing without an error. */
export function FormError({ error }: { error: unknown }) {
  const text = useErrorText();
  if (!error) return null;
  return (
    <Alert
      type="error"
      showIcon
      role="alert"
      style={{ marginBottom: 16 }}
      message={<span data-testid="form-error">{text(error)}</span>}
    />
  );
}
