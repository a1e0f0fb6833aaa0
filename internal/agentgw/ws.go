package agentgw

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The server side of RFC 6455 for agent sockets: the handshake and the
// frames the hub writes (frames.go reads). No extension or subprotocol is
// offered. No library connection object is kept per socket (gws's, with
// its queues and buffers, cost an idle agent 0.8 KiB of the hub's RSS):
// the session is the connection.

// upgradeTimeout bounds the write of the handshake's answer.
const upgradeTimeout = 10 * time.Second

// errHandshake is a request that is not a WebSocket handshake.
var errHandshake = errors.New("agentgw: not a WebSocket version 13 handshake")

// upgrade checks the handshake, takes the connection from the HTTP server
// and answers 101. It returns the connection and any bytes the agent sent
// after its request. A request that is not a handshake is answered 400.
func upgrade(w http.ResponseWriter, r *http.Request) (net.Conn, []byte, error) {
	key := r.Header.Get("Sec-WebSocket-Key")
	if r.Method != http.MethodGet || key == "" || r.Header.Get("Sec-WebSocket-Version") != "13" ||
		!strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || !headerHasToken(r.Header, "Connection", "upgrade") {
		w.Header().Set("Sec-WebSocket-Version", "13")
		http.Error(w, errHandshake.Error(), http.StatusBadRequest)
		return nil, nil, errHandshake
	}
	conn, early, err := hijack(w)
	if err != nil {
		return nil, nil, err
	}
	answer := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " +
		acceptKey(key) + "\r\n\r\n"
	_ = conn.SetWriteDeadline(time.Now().Add(upgradeTimeout))
	if _, err := conn.Write([]byte(answer)); err != nil {
		_ = conn.Close()
		return nil, nil, err
	}
	_ = conn.SetDeadline(time.Time{}) // the hijacking server may have left one
	return conn, early, nil
}

// headerHasToken reports whether a comma-separated header holds token.
func headerHasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// acceptKey is Sec-WebSocket-Accept for a Sec-WebSocket-Key (RFC 6455 §4.2.2).
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// errNotUTF8 refuses a text message that is not UTF-8, before any byte
// of it is written.
var errNotUTF8 = errors.New("agentgw: text message is not UTF-8")

// errClosed is a write to a socket the hub has closed.
var errClosed = errors.New("agentgw: socket closed")

// writeFrame writes one unfragmented, unmasked frame. The caller orders
// writes (session.write).
func (s *session) writeFrame(op byte, payload []byte) error {
	if op == opText && !utf8.Valid(payload) {
		return errNotUTF8
	}
	if op != opClose && s.closeSent.Load() {
		return errClosed
	}
	var h [10]byte
	h[0] = 0x80 | op
	n := 2
	switch l := len(payload); {
	case l < 126:
		h[1] = byte(l)
	case l < 1<<16:
		h[1], h[2], h[3], n = 126, byte(l>>8), byte(l), 4
	default:
		h[1], n = 127, 10
		for i := range 8 {
			h[2+i] = byte(uint64(l) >> (56 - 8*i))
		}
	}
	if len(payload) > smallFrame {
		bufs := net.Buffers{h[:n], payload}
		_, err := bufs.WriteTo(s.raw)
		return err
	}
	bp := frameBufs.Get().(*[]byte)
	defer frameBufs.Put(bp)
	b := append(append((*bp)[:0], h[:n]...), payload...)
	*bp = b
	_, err := s.raw.Write(b)
	return err
}

// smallFrame is the largest payload copied into one buffer with its
// header; a larger one is written from where it is, with its header, in
// one writev.
const smallFrame = 2048

var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 10+smallFrame); return &b }}

// writeClose sends a close frame with code and reason, then closes the
// socket; the first call does, later ones return errClosed.
func (s *session) writeClose(code uint16, reason string) error {
	if !s.closeSent.CompareAndSwap(false, true) {
		return errClosed
	}
	if len(reason) > 123 {
		reason = strings.ToValidUTF8(reason[:123], "")
	}
	err := s.writeFrame(opClose, append([]byte{byte(code >> 8), byte(code)}, reason...))
	_ = s.raw.Close()
	s.socketClosed()
	return err
}
