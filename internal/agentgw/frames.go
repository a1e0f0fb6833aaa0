package agentgw

import (
	"encoding/binary"
	"unicode/utf8"
)

// The hub reads agents' WebSocket frames itself (RFC 6455 §5, server
// side, no extensions) instead of through gws's read loop, because that
// loop is a goroutine blocked in a read for the life of every socket, and
// an idle agent's goroutine was the largest part of what it cost the hub
// (docs/performance.md). ws.go answers the handshake and writes frames.
//
// frameReader turns the bytes read from a socket, in whatever pieces they
// arrive, into messages and control frames. An idle socket's frameReader
// holds nothing: bytes are kept between reads only when a frame is
// incomplete.

// WebSocket opcodes.
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

// Close codes the reader fails a connection with.
const (
	closeNormal      = 1000
	closeProtocol    = 1002
	closeInvalidData = 1007
	closeTooLarge    = 1009
)

// frameError fails the connection with a close code.
type frameError struct {
	code   uint16
	reason string
}

func (e *frameError) Error() string { return e.reason }

var (
	errReserved     = &frameError{closeProtocol, "reserved bits or opcode"}
	errUnmasked     = &frameError{closeProtocol, "client frame not masked"}
	errControl      = &frameError{closeProtocol, "fragmented or long control frame"}
	errTooLarge     = &frameError{closeTooLarge, "message too large"}
	errContinuation = &frameError{closeProtocol, "unexpected continuation or fragment"}
	errUTF8         = &frameError{closeInvalidData, "text message is not UTF-8"}
)

// frameReader reassembles a socket's messages. It is used by one goroutine
// at a time (the session's inbox).
type frameReader struct {
	// max is the largest message accepted (its fragments together).
	max int
	// pending holds the start of a frame not yet complete; nil between
	// frames. Its capacity is the whole frame once the header is known.
	pending []byte
	// frag holds the fragments of a message so far, and fragOp its
	// opcode (0: no fragmented message under way).
	frag   []byte
	fragOp byte
}

// frameSink receives what a frameReader reads: a complete data message
// (opText or opBinary) or a control frame (opClose, opPing, opPong). The
// payload is valid only during the call. A non-nil error stops reading.
type frameSink func(op byte, payload []byte) error

// feed reads the frames in b, after any pending bytes, and hands each
// message and control frame to sink in order. It keeps what is left of an
// incomplete frame (a copy: b may be reused by the caller).
func (r *frameReader) feed(b []byte, sink frameSink) error {
	owned := len(r.pending) > 0
	if owned {
		b = append(r.pending, b...)
		r.pending = nil
	}
	for len(b) > 0 {
		op, fin, payload, n, need, err := parseFrame(b, r.max)
		if err != nil {
			return err
		}
		if n == 0 {
			if owned && cap(b) >= need {
				r.pending = b // a long frame arriving in pieces is copied once
			} else {
				r.pending = make([]byte, len(b), max(need, len(b)))
				copy(r.pending, b)
			}
			return nil
		}
		b = b[n:]
		if err := r.frame(op, fin, payload, sink); err != nil {
			return err
		}
	}
	return nil
}

// frame handles one complete frame: control frames go to sink at once,
// data frames when their message is whole.
func (r *frameReader) frame(op byte, fin bool, payload []byte, sink frameSink) error {
	switch {
	case op >= opClose:
		return sink(op, payload)
	case op == opContinuation:
		if r.fragOp == 0 {
			return errContinuation
		}
		if len(r.frag)+len(payload) > r.max {
			return errTooLarge
		}
		r.frag = append(r.frag, payload...)
		if !fin {
			return nil
		}
		op, payload = r.fragOp, r.frag
		r.frag, r.fragOp = nil, 0
	case r.fragOp != 0:
		return errContinuation // a new message inside a fragmented one
	case !fin:
		r.fragOp = op
		r.frag = append([]byte(nil), payload...)
		return nil
	}
	if op == opText && !utf8.Valid(payload) {
		return errUTF8
	}
	return sink(op, payload)
}

// parseFrame parses the frame at the start of b and unmasks its payload
// in place. When b holds less than the whole frame it returns n == 0 and,
// once the header is complete, need: the frame's whole length.
func parseFrame(b []byte, maxPayload int) (op byte, fin bool, payload []byte, n, need int, err error) {
	if len(b) < 2 {
		return 0, false, nil, 0, 0, nil
	}
	fin, op = b[0]&0x80 != 0, b[0]&0x0F
	if b[0]&0x70 != 0 || (op > opBinary && op < opClose) || op > opPong {
		return 0, false, nil, 0, 0, errReserved
	}
	if b[1]&0x80 == 0 {
		return 0, false, nil, 0, 0, errUnmasked
	}
	length, h := uint64(b[1]&0x7F), 2
	if op >= opClose && (!fin || length > 125) {
		return 0, false, nil, 0, 0, errControl
	}
	switch length {
	case 126:
		if len(b) < 4 {
			return 0, false, nil, 0, 0, nil
		}
		length, h = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return 0, false, nil, 0, 0, nil
		}
		length, h = binary.BigEndian.Uint64(b[2:]), 10
	}
	if length > uint64(maxPayload) {
		return 0, false, nil, 0, 0, errTooLarge
	}
	total := h + 4 + int(length)
	if len(b) < total {
		return 0, false, nil, 0, total, nil
	}
	key := b[h : h+4]
	payload = b[h+4 : total]
	for i := range payload {
		payload[i] ^= key[i&3]
	}
	return op, fin, payload, total, 0, nil
}

// closeReply is the code the hub answers a close frame with (RFC 6455
// §5.5.1, §7.4), and the code and reason the agent sent.
func closeReply(payload []byte) (reply, code uint16, reason []byte) {
	switch len(payload) {
	case 0:
		return closeNormal, 0, nil
	case 1:
		return closeProtocol, uint16(payload[0]), nil
	}
	code, reason = binary.BigEndian.Uint16(payload), payload[2:]
	switch {
	case !utf8.Valid(reason):
		reply = closeInvalidData
	case code < 1000 || code >= 5000 || code == 1004 || code == 1005 || code == 1006 || (code >= 1015 && code < 3000):
		reply = closeProtocol
	case code < 1015:
		reply = closeNormal
	default:
		reply = code
	}
	return reply, code, reason
}
