package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
)

func TestScrapeSumsSeriesOfOneName(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 1234
hostgate_db_connections_open{pool="write"} 1
hostgate_db_connections_open{pool="read"} 4
process_open_fds 1.5e+03

`)
	}))
	defer srv.Close()
	m, err := scrape(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"go_goroutines": 1234, "hostgate_db_connections_open": 5, "process_open_fds": 1500}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if len(m) != len(want) {
		t.Errorf("scraped %v, want only %v", m, want)
	}
}

func TestSocketsToCountsOnlyThisProcessesConnectionsToThePort(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p := ln.Addr().(*net.TCPAddr).Port
	if n := socketsTo(os.Getpid(), p); n != 0 {
		t.Fatalf("before dialling: %d sockets", n)
	}
	var conns []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	// The accepted ends are local to the port, not connected to it: only
	// the three dialled ones count.
	if n := socketsTo(os.Getpid(), p); n != 3 {
		t.Fatalf("%d sockets to the port, want 3", n)
	}
	for _, c := range conns {
		c.Close()
	}
}
