export default function BillingPage() {
  return <div>Billing</div>;
}
