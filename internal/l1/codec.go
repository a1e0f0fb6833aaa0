package l1

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"hostgate/internal/agentproto"
)

// b64 refuses non-zero trailing bits, so one ciphertext has one text.
var b64 = base64.StdEncoding.Strict()

// Codec encodes and decodes the requests of one host: its bid and its
// secret key. It is safe for concurrent use.
type Codec struct {
	bid   int64
	block cipher.Block
	iv    []byte
}

// NewCodec returns the codec of the host with this bid and secret key. The
// key must be exactly 32 characters (ErrKeySize); the error never contains it.
func NewCodec(bid int64, secretKey string) (*Codec, error) {
	if len(secretKey) != SecretKeyLen {
		return nil, fmt.Errorf("%w, got %d", ErrKeySize, len(secretKey))
	}
	key := []byte(secretKey)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("l1: %w", err)
	}
	return &Codec{bid: bid, block: block, iv: key[:aes.BlockSize]}, nil
}

// BID is the host this codec speaks for.
func (c *Codec) BID() int64 { return c.bid }

// frame is the plaintext of a request. Pointers tell a missing field from a
// zero one; every field but args is required.
type frame struct {
	BID     *int64                  `json:"bid"`
	Control *int64                  `json:"control"`
	Args    *agentproto.ControlArgs `json:"args,omitempty"`
	TS      *int64                  `json:"ts"`
	Nonce   *string                 `json:"nonce"`
}

// Encode returns the base64 text to POST for r. Unlike Decode it says what
// is wrong, since its caller is the sender.
func (c *Codec) Encode(r Request) (string, error) {
	if err := r.validate(); err != nil {
		return "", err
	}
	plain, err := marshalFrame(frame{BID: &c.bid, Control: &r.Control, Args: &r.Args, TS: &r.TS, Nonce: &r.Nonce})
	if err != nil {
		return "", err
	}
	out := c.seal(plain)
	if len(out) > MaxBody {
		return "", fmt.Errorf("l1: message is %d bytes of base64, over the %d limit", len(out), MaxBody)
	}
	return out, nil
}

// marshalFrame writes f as compact JSON without HTML escaping, so that
// args reach the receiver byte for byte as the sender wrote them.
func marshalFrame(f frame) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return nil, fmt.Errorf("l1: encode frame: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Decode opens a request body and checks it against now: the bid must be
// this codec's and ts within MaxSkew. Every failure is ErrInvalid. The
// caller must still refuse a replayed nonce (CheckReplay).
func (c *Codec) Decode(body []byte, now time.Time) (Request, error) {
	if len(body) > MaxBody {
		return Request{}, ErrInvalid
	}
	body = bytes.TrimSpace(body)
	ct := make([]byte, b64.DecodedLen(len(body)))
	n, err := b64.Decode(ct, body)
	if err != nil || n == 0 || n%aes.BlockSize != 0 {
		return Request{}, ErrInvalid
	}
	plain, padOK := c.open(ct[:n])
	// The frame is parsed even when the padding is bad (open then returns
	// the whole plaintext), so both failures take the same path. Earlier
	// exits depend only on the text, which the sender already knows.
	r, frameErr := c.parse(plain, now)
	if padOK != 1 || frameErr != nil {
		return Request{}, ErrInvalid
	}
	return r, nil
}

// parse reads and checks a frame. Its errors are for tests and never reach
// a sender.
func (c *Codec) parse(plain []byte, now time.Time) (Request, error) {
	var f frame
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Request{}, fmt.Errorf("l1: frame: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Request{}, errors.New("l1: frame: trailing content")
	}
	if f.BID == nil || f.Control == nil || f.TS == nil || f.Nonce == nil {
		return Request{}, errors.New("l1: frame: bid, control, ts and nonce are required")
	}
	if *f.BID != c.bid {
		return Request{}, errors.New("l1: frame: bid is not this host's")
	}
	r := Request{Control: *f.Control, TS: *f.TS, Nonce: *f.Nonce}
	if f.Args != nil {
		r.Args = *f.Args
	}
	if err := r.validate(); err != nil {
		return Request{}, err
	}
	if !fresh(r.TS, now) {
		return Request{}, errors.New("l1: ts is outside the accepted window")
	}
	return r, nil
}

// seal pads, encrypts and base64-encodes plain.
func (c *Codec) seal(plain []byte) string {
	buf := pad(plain)
	cipher.NewCBCEncrypter(c.block, c.iv).CryptBlocks(buf, buf)
	return b64.EncodeToString(buf)
}

// open decrypts ct (a non-empty whole number of blocks) in place and
// returns the plaintext without its padding and 1, or, when the padding is
// bad, all of ct and 0.
func (c *Codec) open(ct []byte) ([]byte, int) {
	cipher.NewCBCDecrypter(c.block, c.iv).CryptBlocks(ct, ct)
	n, ok := unpad(ct)
	return ct[:n], ok
}

// pad returns a copy of b with PKCS7 padding to a whole block.
func pad(b []byte) []byte {
	p := aes.BlockSize - len(b)%aes.BlockSize
	out := make([]byte, len(b), len(b)+p)
	copy(out, b)
	return append(out, bytes.Repeat([]byte{byte(p)}, p)...)
}

// unpad checks the PKCS7 padding of b (a non-empty whole number of blocks)
// in constant time over its last block: every byte of the block is read and
// compared whatever the padding length claims. It returns the unpadded
// length and 1, or len(b) and 0.
func unpad(b []byte) (int, int) {
	last := b[len(b)-aes.BlockSize:]
	p := int(last[aes.BlockSize-1])
	ok := subtle.ConstantTimeLessOrEq(1, p) & subtle.ConstantTimeLessOrEq(p, aes.BlockSize)
	for i := range aes.BlockSize {
		inPad := subtle.ConstantTimeLessOrEq(aes.BlockSize-i, p)
		same := subtle.ConstantTimeByteEq(last[i], byte(p))
		ok &= subtle.ConstantTimeSelect(inPad, same, 1)
	}
	return subtle.ConstantTimeSelect(ok, len(b)-p, len(b)), ok
}
