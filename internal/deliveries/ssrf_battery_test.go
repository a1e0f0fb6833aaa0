package deliveries

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"hostgate/internal/battery"
)

// svixMatrix is the address matrix of battery T11 (Svix's is_allowed
// test): one address of each range.
var svixMatrix = []string{"127.0.0.1", "127.255.255.254", "::1", "10.0.0.1", "172.16.0.1", "172.31.255.254",
	"192.168.1.1", "169.254.169.254", "100.64.0.1", "fc00::1", "fd12:3456::7", "fe80::1", "::ffff:127.0.0.1",
	"64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1", "2002:a9fe:a9fe::1", "0.0.0.0"}

// sequenceResolver answers the n-th AAAA question with answers[n] (the
// last one from then on), other questions with no records.
func sequenceResolver(answers ...netip.Addr) (*net.Resolver, *atomic.Int32) {
	var asked atomic.Int32
	return &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			for {
				var n [2]byte
				if _, err := io.ReadFull(server, n[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(n[:]))
				if _, err := io.ReadFull(server, q); err != nil {
					return
				}
				end := 12
				for q[end] != 0 {
					end += int(q[end]) + 1
				}
				end += 5
				msg := append([]byte{q[0], q[1], 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0}, q[12:end]...)
				if binary.BigEndian.Uint16(q[end-4:]) == 28 { // AAAA
					i := int(asked.Add(1)) - 1
					addr := answers[min(i, len(answers)-1)]
					msg[7] = 1
					msg = append(msg, 0xc0, 12, 0, 28, 0, 1, 0, 0, 0, 60, 0, 16)
					b := addr.As16()
					msg = append(msg, b[:]...)
				}
				if _, err := server.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(msg))), msg...)); err != nil {
					return
				}
			}
		}()
		return client, nil
	}}, &asked
}

// TestBatterySSRFMatrix (battery T11): every address of the matrix is
// refused by the judge, as a URL literal and as a name resolving to it,
// when the client connects: the attempt fails "refused: the address is
// not public" and the test receiver on 127.0.0.1 (on the port every URL
// names) accepts no connection. A name answering a public address first
// and the receiver's loopback address next (DNS rebinding) is refused at
// connect. Only a client built with allowPrivate (the tests'
// HOSTGATE_WEBHOOK_ALLOW_PRIVATE=1) reaches the receiver.
func TestBatterySSRFMatrix(t *testing.T) {
	var accepted atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			accepted.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	portN, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	try := func(c *http.Client, url, what string) {
		t.Helper()
		resp, err := c.Get(url)
		if err == nil {
			_ = resp.Body.Close()
		}
		var r *RefusedError
		if !errors.As(err, &r) || Reason(err) != ReasonNotPublic {
			t.Errorf("%s: %v, want refused (%q)", what, err, ReasonNotPublic)
			return
		}
		refused++
	}
	for _, s := range svixMatrix {
		a := netip.MustParseAddr(s)
		if CheckAddr(a) == nil {
			t.Errorf("CheckAddr(%s) allowed it", s)
		}
		try(NewClient(false), "http://"+netip.AddrPortFrom(a, uint16(portN)).String()+"/", "literal "+s)
		res, _ := sequenceResolver(a)
		try(newClient(false, res), "http://hook.example.test.:"+port+"/", "a name resolving to "+s)
	}
	// Rebinding: the first answer is public (what a check before the
	// connection would see), the next one the receiver's loopback.
	res, asked := sequenceResolver(netip.MustParseAddr("2606:4700:4700::1111"), netip.MustParseAddr("::ffff:127.0.0.1"))
	if ips, err := res.LookupNetIP(context.Background(), "ip6", "hook.example.test."); err != nil || len(ips) != 1 || CheckAddr(ips[0]) != nil {
		t.Fatalf("first look-up: %v, %v; want a public address", ips, err)
	}
	try(newClient(false, res), "http://hook.example.test.:"+port+"/", "the rebound name")
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the receiver accepted %d connections from refused targets", n)
	}
	// The tests' allowlist: only with allowPrivate does the loopback
	// receiver get a connection.
	allow, _ := sequenceResolver(netip.MustParseAddr("::ffff:127.0.0.1"))
	var resp *http.Response
	resp, err = newClient(true, allow).Get("http://hook.example.test.:" + port + "/")
	if err != nil {
		t.Fatalf("allowPrivate: %v", err)
	}
	_ = resp.Body.Close()
	if accepted.Load() != 1 {
		t.Fatalf("allowPrivate: %d connections, want 1", accepted.Load())
	}
	battery.Report(t, "T11", "%d addresses × (URL literal, name resolving to it) + 1 rebinding name (public, then 127.0.0.1; %d AAAA answers): %d/%d refused at connect (%q), 0 TCP connections reached the 127.0.0.1 receiver; with allowPrivate (tests only) it gets 1",
		len(svixMatrix), asked.Load(), refused, 2*len(svixMatrix)+1, ReasonNotPublic)
}
