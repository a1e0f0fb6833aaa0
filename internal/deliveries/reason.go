package deliveries

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// The reasons a failed attempt gives the tenant in last_error. They name
// what failed in the tenant's terms and nothing of the hub's own network:
// not its resolver's address, not what a name resolved to, not an
// internal address and not Go's error chain. The hub's log keeps the
// detail (Worker.deliver logs it with the delivery id).
const (
	ReasonTimeout       = "timeout: no answer within 5s"
	ReasonNotPublic     = "refused: the address is not public"
	ReasonNameNotFound  = "dns: name not found"
	ReasonDNSTimeout    = "dns: timeout"
	ReasonDNSFailed     = "dns: lookup failed"
	ReasonConnRefused   = "connect: refused"
	ReasonConnReset     = "connect: reset by the receiver"
	ReasonUnreachable   = "connect: network unreachable"
	ReasonConnFailed    = "connect: failed"
	ReasonClosed        = "connect: closed by the receiver before an answer"
	ReasonTLSUntrusted  = "tls: certificate not trusted"
	ReasonTLSName       = "tls: certificate not valid for this name"
	ReasonTLSExpired    = "tls: certificate expired or not yet valid"
	ReasonTLSInvalid    = "tls: certificate not valid"
	ReasonTLSNotTLS     = "tls: the receiver did not answer in TLS"
	ReasonTLSAlert      = "tls: handshake refused by the receiver"
	ReasonRequestFailed = "request failed"
)

// Reason is what the tenant is told about err, an error of sending a
// delivery (http.Client.Do): one of the Reason constants, never the
// error's own text.
func Reason(err error) string {
	if err == nil {
		return ""
	}
	if errors.As(err, new(*RefusedError)) {
		return ReasonNotPublic
	}
	if dns, ok := errors.AsType[*net.DNSError](err); ok {
		switch {
		case dns.IsNotFound:
			return ReasonNameNotFound
		case dns.IsTimeout:
			return ReasonDNSTimeout
		}
		return ReasonDNSFailed
	}
	if r := tlsReason(err); r != "" {
		return r
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return ReasonTimeout
	}
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return ReasonConnRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ReasonConnReset
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return ReasonUnreachable
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ReasonClosed
	}
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "dial" {
		return ReasonConnFailed
	}
	return ReasonRequestFailed
}

// tlsReason names a TLS failure, or "" when err is not one.
func tlsReason(err error) string {
	if _, ok := errors.AsType[x509.UnknownAuthorityError](err); ok {
		return ReasonTLSUntrusted
	}
	if _, ok := errors.AsType[x509.HostnameError](err); ok {
		return ReasonTLSName
	}
	if ci, ok := errors.AsType[x509.CertificateInvalidError](err); ok {
		if ci.Reason == x509.Expired {
			return ReasonTLSExpired
		}
		return ReasonTLSInvalid
	}
	if _, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return ReasonTLSUntrusted
	}
	if _, ok := errors.AsType[tls.RecordHeaderError](err); ok {
		return ReasonTLSNotTLS
	}
	// net/http turns a RecordHeaderError whose bytes look like HTTP into
	// a plain error with this text.
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return ReasonTLSNotTLS
	}
	if _, ok := errors.AsType[tls.AlertError](err); ok {
		return ReasonTLSAlert
	}
	// A TLS alert from the peer is a net.OpError "remote error" around an
	// unexported alert type.
	if op, ok := errors.AsType[*net.OpError](err); ok && op.Op == "remote error" {
		return ReasonTLSAlert
	}
	return ""
}

// isTimeout reports whether err says it is a timeout (url.Error and
// net.Error do).
func isTimeout(err error) bool {
	if ue, ok := errors.AsType[*url.Error](err); ok && ue.Timeout() {
		return true
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return true
	}
	return false
}

// logDetail is the text of err for the hub's log: the whole chain, but
// without the URL that a url.Error repeats (a customer may have put a
// token in it).
func logDetail(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}
