package streams

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Version is the frame format this package speaks. It travels in the high
// four bits of every frame's first byte; a frame of any other version is
// refused, so a later format can be introduced behind a protocol bump.
const Version = 1

// Type is what a frame carries (the low four bits of its first byte).
type Type uint8

// Frame types of version 1.
const (
	// TypeOpen opens a stream. Payload: opaque metadata (up to MaxMeta
	// bytes) that tells the acceptor what the stream is for.
	TypeOpen Type = 1
	// TypeData carries stream bytes (1 to MaxPayload). The sender must hold
	// that much credit.
	TypeData Type = 2
	// TypeWindow grants the peer more credit. Payload: uint32 increment,
	// big-endian, never 0.
	TypeWindow Type = 3
	// TypeEOF half-closes: the sender will send no more DATA on the stream.
	TypeEOF Type = 4
	// TypeClose ends the stream in both directions. Payload: one byte Code,
	// then up to MaxReason bytes of UTF-8 text.
	TypeClose Type = 5
)

func (t Type) String() string {
	switch t {
	case TypeOpen:
		return "OPEN"
	case TypeData:
		return "DATA"
	case TypeWindow:
		return "WINDOW"
	case TypeEOF:
		return "EOF"
	case TypeClose:
		return "CLOSE"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Sizes. A frame is one WebSocket binary message, so it needs no length
// field of its own.
const (
	HeaderSize = 5        // version/type byte + uint32 stream id
	MaxPayload = 32 << 10 // largest DATA payload
	MaxMeta    = 1 << 10  // largest OPEN payload
	MaxReason  = 123      // longest CLOSE text (the WebSocket close limit)
	MaxFrame   = HeaderSize + MaxPayload
)

// Code says why a stream was closed.
type Code uint8

// Close codes. Unknown codes are accepted and reported as they are, so a
// later version can add some.
const (
	CodeNormal   Code = 0 // orderly close; the reader sees io.EOF
	CodeRefused  Code = 1 // the acceptor is at its stream limit or not accepting
	CodeProtocol Code = 2 // the peer broke the rules (credit overrun, DATA after EOF, bad id)
	CodeShutdown Code = 3 // the connection or the process is going away
	CodeApp      Code = 4 // the application failed (e.g. the shell could not start)
	CodeTimeout  Code = 5 // idle or deadline timeout
)

// Frame is one decoded stream frame. Data is the payload of OPEN and DATA;
// Credit that of WINDOW; Code and Reason that of CLOSE.
type Frame struct {
	Type   Type
	Stream uint32
	Data   []byte
	Credit uint32
	Code   Code
	Reason string
}

// Decoding errors. Every malformed frame yields an error wrapping
// ErrMalformed.
var (
	ErrMalformed = errors.New("streams: malformed frame")
	errVersion   = fmt.Errorf("%w: unsupported version", ErrMalformed)
	errType      = fmt.Errorf("%w: unknown type", ErrMalformed)
	errShort     = fmt.Errorf("%w: short frame", ErrMalformed)
	errSize      = fmt.Errorf("%w: bad payload size", ErrMalformed)
	errStreamID  = fmt.Errorf("%w: stream id 0", ErrMalformed)
	errCredit    = fmt.Errorf("%w: zero credit", ErrMalformed)
	errReason    = fmt.Errorf("%w: reason is not UTF-8", ErrMalformed)
)

// AppendBinary appends the encoded frame to b. It refuses a frame that
// DecodeFrame would refuse.
func (f Frame) AppendBinary(b []byte) ([]byte, error) {
	if err := f.check(); err != nil {
		return b, err
	}
	b = append(b, Version<<4|byte(f.Type))
	b = binary.BigEndian.AppendUint32(b, f.Stream)
	switch f.Type {
	case TypeOpen, TypeData:
		b = append(b, f.Data...)
	case TypeWindow:
		b = binary.BigEndian.AppendUint32(b, f.Credit)
	case TypeClose:
		b = append(b, byte(f.Code))
		b = append(b, f.Reason...)
	}
	return b, nil
}

// check validates the fields the encoding of f depends on.
func (f Frame) check() error {
	if f.Stream == 0 {
		return errStreamID
	}
	switch f.Type {
	case TypeOpen:
		if len(f.Data) > MaxMeta {
			return errSize
		}
	case TypeData:
		if len(f.Data) == 0 || len(f.Data) > MaxPayload {
			return errSize
		}
	case TypeWindow:
		if f.Credit == 0 {
			return errCredit
		}
	case TypeEOF:
	case TypeClose:
		if len(f.Reason) > MaxReason {
			return errSize
		}
		if !utf8.ValidString(f.Reason) {
			return errReason
		}
	default:
		return errType
	}
	return nil
}

// DecodeFrame parses one binary message. Data aliases msg; copy it if msg
// is reused. It never panics; anything but a well-formed version-1 frame
// is an error wrapping ErrMalformed.
func DecodeFrame(msg []byte) (Frame, error) {
	if len(msg) < HeaderSize {
		return Frame{}, errShort
	}
	if msg[0]>>4 != Version {
		return Frame{}, errVersion
	}
	f := Frame{Type: Type(msg[0] & 0x0f), Stream: binary.BigEndian.Uint32(msg[1:5])}
	p := msg[HeaderSize:]
	switch f.Type {
	case TypeOpen, TypeData:
		f.Data = p
	case TypeWindow:
		if len(p) != 4 {
			return Frame{}, errSize
		}
		f.Credit = binary.BigEndian.Uint32(p)
	case TypeEOF:
		if len(p) != 0 {
			return Frame{}, errSize
		}
	case TypeClose:
		if len(p) < 1 {
			return Frame{}, errSize
		}
		f.Code, f.Reason = Code(p[0]), string(p[1:])
	}
	if err := f.check(); err != nil {
		return Frame{}, err
	}
	return f, nil
}
