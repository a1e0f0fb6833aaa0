package sysops

import (
	"net"

	gnet "github.com/shirou/gopsutil/v4/net"

	"hostgate/internal/agentproto"
)

// MaxInterfaces bounds SYSTEM_INFO's interfaces; a host with more (a
// container host with one veth per container) reports the first ones in
// the OS's order.
const MaxInterfaces = 256

// listInterfaces is the interface list of SYSTEM_INFO; empty when the OS
// refuses it.
func listInterfaces(src *source) []agentproto.NetInterface {
	ifs, err := src.interfaces()
	if err != nil || ifs == nil {
		return []agentproto.NetInterface{}
	}
	return ifs[:min(len(ifs), MaxInterfaces)]
}

// readInterfaces lists the host's interfaces with the standard library,
// which uses the same OS calls gopsutil's wrapper would. An interface
// whose addresses cannot be read is listed without them.
func readInterfaces() ([]agentproto.NetInterface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	ifs = ifs[:min(len(ifs), MaxInterfaces)]
	out := make([]agentproto.NetInterface, 0, len(ifs))
	for _, ifi := range ifs {
		addrs, _ := ifi.Addrs()
		out = append(out, toNetInterface(ifi, addrs))
	}
	return out, nil
}

// toNetInterface describes one interface. Up means administratively up
// and with a working link (FlagUp and FlagRunning); addresses are in CIDR
// form ("192.0.2.10/24", "fe80::1/64").
func toNetInterface(ifi net.Interface, addrs []net.Addr) agentproto.NetInterface {
	n := agentproto.NetInterface{
		Name:  ifi.Name,
		MAC:   ifi.HardwareAddr.String(),
		Addrs: make([]string, 0, len(addrs)),
		Up:    ifi.Flags&net.FlagUp != 0 && ifi.Flags&net.FlagRunning != 0,
	}
	for _, a := range addrs {
		n.Addrs = append(n.Addrs, a.String())
	}
	return n
}

// nicBytes are one interface's byte counters since it came up.
type nicBytes struct{ rx, tx uint64 }

// loopbackNames are the names of the loopback interfaces; "lo" (Linux)
// when the list cannot be read.
func loopbackNames() map[string]bool {
	ifs, err := net.Interfaces()
	if err != nil {
		return map[string]bool{"lo": true}
	}
	names := map[string]bool{}
	for _, ifi := range ifs {
		if ifi.Flags&net.FlagLoopback != 0 {
			names[ifi.Name] = true
		}
	}
	return names
}

// nonLoopback keys the counters by interface name, leaving out loopback.
func nonLoopback(cs []gnet.IOCountersStat, loopback map[string]bool) map[string]nicBytes {
	out := make(map[string]nicBytes, len(cs))
	for _, c := range cs {
		if !loopback[c.Name] {
			out[c.Name] = nicBytes{rx: c.BytesRecv, tx: c.BytesSent}
		}
	}
	return out
}
