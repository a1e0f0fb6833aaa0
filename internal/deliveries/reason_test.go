package deliveries

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// ipLike matches anything that looks like an IPv4 or IPv6 address or a
// host:port: what a tenant-facing reason must never hold.
var ipLike = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|[0-9a-fA-F]*:[0-9a-fA-F]*:|:\d+\b`)

// timeoutErr is an error that says it is a timeout, as the http.Client's
// own deadline error does.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "Client.Timeout exceeded while awaiting headers" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// post wraps err the way http.Client.Do does, with a URL carrying a token.
func post(err error) error {
	return &url.Error{Op: "Post", URL: "http://hook.example.com/h?token=s3cret", Err: err}
}

func dial(err error) error {
	return post(&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 443}, Err: err})
}

func TestReason(t *testing.T) {
	resolver := "10.255.255.53:53"
	tests := []struct {
		name string
		err  error
		want string
	}{
		// The two leaks of the probe: the hub's resolver address, and what a
		// name in the hub's hosts file resolved to.
		{"name not found", dial(&net.DNSError{Err: "no such host", Name: "0x7f.1", Server: resolver, IsNotFound: true}), ReasonNameNotFound},
		{"name resolving to loopback", dial(&RefusedError{Addr: netip.MustParseAddr("127.0.0.1"), Reason: "loopback"}), ReasonNotPublic},
		{"name resolving to an embedding address", dial(&RefusedError{Addr: netip.MustParseAddr("64:ff9b::a00:1"),
			Embedded: netip.MustParseAddr("10.0.0.1"), Reason: "private"}), ReasonNotPublic},
		{"dns timeout", dial(&net.DNSError{Err: "i/o timeout", Name: "hook.example.com", Server: resolver, IsTimeout: true}), ReasonDNSTimeout},
		{"dns server failure", dial(&net.DNSError{Err: "server misbehaving", Name: "hook.example.com", Server: resolver, IsTemporary: true}), ReasonDNSFailed},
		{"connection refused", dial(os.NewSyscallError("connect", syscall.ECONNREFUSED)), ReasonConnRefused},
		{"connection reset", post(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), ReasonConnReset},
		{"host unreachable", dial(os.NewSyscallError("connect", syscall.EHOSTUNREACH)), ReasonUnreachable},
		{"network unreachable", dial(os.NewSyscallError("connect", syscall.ENETUNREACH)), ReasonUnreachable},
		{"other dial failure", dial(errors.New("socket: too many open files at 10.1.2.3")), ReasonConnFailed},
		{"deadline", post(fmt.Errorf("dial 10.1.2.3:443: %w", context.DeadlineExceeded)), ReasonTimeout},
		{"client timeout", post(timeoutErr{}), ReasonTimeout},
		{"closed without an answer", post(io.EOF), ReasonClosed},
		{"cut mid-answer", post(io.ErrUnexpectedEOF), ReasonClosed},
		{"untrusted certificate", post(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), ReasonTLSUntrusted},
		{"certificate for another name", post(&tls.CertificateVerificationError{Err: x509.HostnameError{Host: "10.1.2.3"}}), ReasonTLSName},
		{"expired certificate", post(&tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.Expired}}), ReasonTLSExpired},
		{"invalid certificate", post(&tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.NotAuthorizedToSign}}), ReasonTLSInvalid},
		{"not TLS", post(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), ReasonTLSNotTLS},
		{"TLS alert", post(&net.OpError{Op: "remote error", Err: tls.AlertError(40)}), ReasonTLSAlert},
		{"anything else", post(errors.New("net/http: HTTP/1.x transport connection broken: 10.1.2.3")), ReasonRequestFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Reason(tt.err)
			if got != tt.want {
				t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
			}
			if ipLike.MatchString(got) || strings.Contains(got, "s3cret") {
				t.Errorf("Reason(%v) = %q reveals an address or the URL", tt.err, got)
			}
			// The log keeps the detail, without the URL and its token.
			if d := logDetail(tt.err); strings.Contains(d, "s3cret") || !strings.Contains(d, tt.err.(*url.Error).Err.Error()) {
				t.Errorf("logDetail = %q", d)
			}
		})
	}
	if Reason(nil) != "" {
		t.Error("Reason(nil) is not empty")
	}
}

// TestReasonOfRealFailures sends through the client the worker uses and
// checks that real failures are classified as the table above expects.
func TestReasonOfRealFailures(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := ln.Addr().String()
	_ = ln.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(tlsSrv.Close)
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(plain.Close)

	tests := []struct {
		name   string
		client *http.Client
		url    string
		want   string
	}{
		{"unknown name", newClient(false, fakeResolver(netip.Addr{})), "http://nowhere.example.test./h", ReasonNameNotFound},
		{"name resolving to a private address", newClient(false, fakeResolver(netip.MustParseAddr("fd12:3456::7"))), "http://inside.example.test./h", ReasonNotPublic},
		{"loopback literal", NewClient(false), plain.URL, ReasonNotPublic},
		{"closed port", NewClient(true), "http://" + closedPort + "/h", ReasonConnRefused},
		{"self-signed certificate", NewClient(true), tlsSrv.URL, ReasonTLSUntrusted},
		{"https to a plain server", NewClient(true), strings.Replace(plain.URL, "http:", "https:", 1), ReasonTLSNotTLS},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := tt.client.Post(tt.url, "application/json", strings.NewReader("{}"))
			if err == nil {
				_ = resp.Body.Close()
				t.Fatalf("POST %s succeeded", tt.url)
			}
			if got := Reason(err); got != tt.want {
				t.Errorf("Reason(%v) = %q, want %q", err, got, tt.want)
			}
		})
	}
}
