package sysops

import (
	"net"
	"reflect"
	"testing"

	gnet "github.com/shirou/gopsutil/v4/net"

	"hostgate/internal/agentproto"
)

func TestToNetInterface(t *testing.T) {
	mac, _ := net.ParseMAC("52:54:00:12:34:56")
	ipnet := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	tests := []struct {
		name  string
		ifi   net.Interface
		addrs []net.Addr
		want  agentproto.NetInterface
	}{
		{"loopback", net.Interface{Name: "lo", Flags: net.FlagUp | net.FlagRunning | net.FlagLoopback},
			[]net.Addr{ipnet("127.0.0.1/8"), ipnet("::1/128")},
			agentproto.NetInterface{Name: "lo", Addrs: []string{"127.0.0.1/8", "::1/128"}, Up: true}},
		{"ethernet", net.Interface{Name: "eth0", HardwareAddr: mac, Flags: net.FlagUp | net.FlagRunning | net.FlagBroadcast},
			[]net.Addr{ipnet("192.0.2.10/24")},
			agentproto.NetInterface{Name: "eth0", MAC: "52:54:00:12:34:56", Addrs: []string{"192.0.2.10/24"}, Up: true}},
		{"no link", net.Interface{Name: "eth1", HardwareAddr: mac, Flags: net.FlagUp}, nil,
			agentproto.NetInterface{Name: "eth1", MAC: "52:54:00:12:34:56", Addrs: []string{}}},
		{"down", net.Interface{Name: "eth2"}, nil,
			agentproto.NetInterface{Name: "eth2", Addrs: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toNetInterface(tt.ifi, tt.addrs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestNonLoopback(t *testing.T) {
	cs := []gnet.IOCountersStat{
		{Name: "lo", BytesRecv: 9, BytesSent: 9},
		{Name: "eth0", BytesRecv: 100, BytesSent: 50},
		{Name: "Loopback Pseudo-Interface 1", BytesRecv: 7},
	}
	got := nonLoopback(cs, map[string]bool{"lo": true, "Loopback Pseudo-Interface 1": true})
	want := map[string]nicBytes{"eth0": {rx: 100, tx: 50}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestListInterfacesCapped(t *testing.T) {
	src := fakeSource(newFakeClock(), newFakeCounters())
	many := make([]agentproto.NetInterface, MaxInterfaces+5)
	src.interfaces = func() ([]agentproto.NetInterface, error) { return many, nil }
	if got := listInterfaces(src); len(got) != MaxInterfaces {
		t.Errorf("got %d interfaces", len(got))
	}
}
