import { Alert, Button, Card, Flex, Form, InputNumber, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { qk } from '../api/queryKeys';
import type { Recharge, RechargeCreated, RechargeStatus } from '../api/types';
import { useCreateRecharge, useRecharges } from '../hooks/billing';
import { useFormat, useI18n } from '../i18n';
import { FormError } from '../ui/FormError';

const STATUS_COLOR: Record<RechargeStatus, string> = {
  pending: 'processing',
  paid: 'success',
  refunded: 'blue',
  expired: 'default',
};

export function RechargeStatusTag({ status }: { status: RechargeStatus }) {
  const { t } = useI18n();
  return <Tag color={STATUS_COLOR[status] ?? 'default'}>{t(`billing.status.${status}`)}</Tag>;
}

/** How often a pending order is re-read while this page follows it. */
const ORDER_POLL_MS = 2_000;
const TRACK_PAGE = { limit: 20, offset: 0 };

/** Follows one order in the recharge list until it is no longer pending. */
function OrderStatus({ order, blocked }: { order: RechargeCreated; blocked: boolean }) {
  const { t } = useI18n();
  const fmt = useFormat();
  const qc = useQueryClient();
  const statusIn = (items?: Recharge[] | null): RechargeStatus =>
    items?.find((r) => r.order_no === order.order_no)?.status ?? 'pending';
  const list = useRecharges(
    TRACK_PAGE,
    (q) => (statusIn(q.state.data?.items) === 'pending' ? ORDER_POLL_MS : false),
    'user.billing.recharges.track',
  );
  const status = statusIn(list.data?.items);

  // Once settled, the balance and the history change: read them again.
  useEffect(() => {
    if (status !== 'pending') void qc.invalidateQueries({ queryKey: qk.billing.all });
  }, [status, qc]);

  return (
    <Alert
      type={status === 'paid' ? 'success' : status === 'pending' ? 'info' : 'warning'}
      showIcon
      style={{ marginTop: 16 }}
      message={
        <Flex gap={8} wrap="wrap" align="center">
          <span>
            {t('billing.order', {
              order: order.order_no,
              amount: fmt.cny(order.amount_cny),
              tokens: fmt.tokens(order.tokens),
            })}
          </span>
          <span data-testid="recharge-status" data-status={status}>
            <RechargeStatusTag status={status} />
          </span>
        </Flex>
      }
      description={
        status === 'pending' ? (
          <>
            {blocked && <div>{t('billing.popupBlocked')}</div>}
            <Typography.Link href={order.pay_url} target="_blank" rel="noopener noreferrer">
              {t('billing.openPayPage')}
            </Typography.Link>
          </>
        ) : undefined
      }
    />
  );
}

/** Amount in CNY → a recharge order; the pay page opens in a new tab and the order is followed here. */
export function RechargeCard() {
  const { t } = useI18n();
  const create = useCreateRecharge();
  const [order, setOrder] = useState<RechargeCreated | null>(null);
  const [blocked, setBlocked] = useState(false);

  const submit = ({ amount }: { amount: number }) => {
    create.mutate(amount, {
      onSuccess: (o) => {
        const w = window.open(o.pay_url, '_blank');
        if (w) w.opener = null;
        setBlocked(!w);
        setOrder(o);
      },
    });
  };

  return (
    <Card title={t('billing.rechargeTitle')} style={{ height: '100%' }}>
      <Form<{ amount: number }> layout="vertical" requiredMark={false} onFinish={submit} disabled={create.isPending}>
        <FormError error={create.error} />
        <Flex gap={8} align="start" wrap="wrap">
          <Form.Item
            name="amount"
            label={t('billing.amount')}
            style={{ marginBottom: 8, flex: '1 1 200px', maxWidth: 280 }}
            rules={[
              { required: true, message: t('billing.amountRequired') },
              { type: 'number', min: 0.01, message: t('billing.amountInvalid') },
            ]}
          >
            <InputNumber
              data-testid="recharge-amount"
              min={0.01}
              max={1_000_000}
              precision={2}
              step={10}
              prefix="¥"
              style={{ width: '100%' }}
            />
          </Form.Item>
          <Form.Item label=" " colon={false} style={{ marginBottom: 8 }}>
            <Button type="primary" htmlType="submit" loading={create.isPending} data-testid="recharge-submit">
              {t('billing.rechargeSubmit')}
            </Button>
          </Form.Item>
        </Flex>
        <Typography.Text type="secondary">{t('billing.rechargeHint')}</Typography.Text>
      </Form>
      {order && <OrderStatus key={order.order_no} order={order} blocked={blocked} />}
    </Card>
  );
}
