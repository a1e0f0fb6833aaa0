export default function ApiKeysPage() {
  return <div>ApiKeys</div>;
}
