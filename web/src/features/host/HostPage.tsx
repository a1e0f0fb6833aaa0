// Placeholder: the host page is built here (src/features/host/**) by its
// own owner; see web/FOUNDATION.md.
import { Typography } from 'antd';
import { useParams } from 'react-router';

export default function HostPage() {
  const { id } = useParams();
  return (
    <Typography.Title level={3} data-testid="host-name-title">
      {id}
    </Typography.Title>
  );
}
