export default function HostsPage() {
  return <div>Hosts</div>;
}
