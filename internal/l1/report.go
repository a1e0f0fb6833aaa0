package l1

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Report is what an agent sends to its host's report_url (L1 reverse
// reporting): an event, stamped like a request, encrypted with the same
// codec. Its frame has the key "event" and no "control", so a report can
// never be taken for a request, nor a request for a report.
type Report struct {
	Event string // "online", "settings" or "control"
	// TS is the sender's clock in unix seconds.
	TS int64
	// Nonce is 16…64 characters of [A-Za-z0-9_-]; a retried report keeps
	// it, so a receiver can drop the copies.
	Nonce string
	// Detail is the event's JSON object, or nil.
	Detail json.RawMessage
}

// NewReport stamps a report for sending now, with a fresh random nonce.
func NewReport(event string, detail json.RawMessage, now time.Time) Report {
	return Report{Event: event, TS: now.Unix(), Nonce: rand.Text(), Detail: detail}
}

// MaxEventLen bounds a report's event name.
const MaxEventLen = 32

// reportFrame is the plaintext of a report.
type reportFrame struct {
	Event  *string          `json:"event"`
	BID    *int64           `json:"bid"`
	TS     *int64           `json:"ts"`
	Nonce  *string          `json:"nonce"`
	Detail *json.RawMessage `json:"detail,omitempty"`
}

func (r Report) validate() error {
	if r.Event == "" || len(r.Event) > MaxEventLen {
		return fmt.Errorf("l1: report event must be 1…%d characters", MaxEventLen)
	}
	if r.TS <= 0 {
		return errors.New("l1: ts must be positive unix seconds")
	}
	return validateNonce(r.Nonce)
}

// EncodeReport returns the base64 text of r for this codec's host.
func (c *Codec) EncodeReport(r Report) (string, error) {
	if err := r.validate(); err != nil {
		return "", err
	}
	f := reportFrame{Event: &r.Event, BID: &c.bid, TS: &r.TS, Nonce: &r.Nonce}
	if len(r.Detail) > 0 {
		f.Detail = &r.Detail
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return "", fmt.Errorf("l1: encode report: %w", err)
	}
	out := c.seal(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if len(out) > MaxBody {
		return "", fmt.Errorf("l1: report is %d bytes of base64, over the %d limit", len(out), MaxBody)
	}
	return out, nil
}

// DecodeReport opens a report body, as a report_url receiver does: the
// bid must be this codec's and ts within MaxSkew of now. Every failure is
// ErrInvalid, with the same constant-time padding check as Decode. The
// receiver should still drop a nonce it has seen (NonceStore).
func (c *Codec) DecodeReport(body []byte, now time.Time) (Report, error) {
	if len(body) > MaxBody {
		return Report{}, ErrInvalid
	}
	body = bytes.TrimSpace(body)
	ct := make([]byte, b64.DecodedLen(len(body)))
	n, err := b64.Decode(ct, body)
	if err != nil || n == 0 || n%aes.BlockSize != 0 {
		return Report{}, ErrInvalid
	}
	plain, padOK := c.open(ct[:n])
	r, frameErr := c.parseReport(plain, now)
	if padOK != 1 || frameErr != nil {
		return Report{}, ErrInvalid
	}
	return r, nil
}

func (c *Codec) parseReport(plain []byte, now time.Time) (Report, error) {
	var f reportFrame
	dec := json.NewDecoder(bytes.NewReader(plain))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return Report{}, fmt.Errorf("l1: report: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Report{}, errors.New("l1: report: trailing content")
	}
	if f.Event == nil || f.BID == nil || f.TS == nil || f.Nonce == nil {
		return Report{}, errors.New("l1: report: event, bid, ts and nonce are required")
	}
	if *f.BID != c.bid {
		return Report{}, errors.New("l1: report: bid is not this host's")
	}
	r := Report{Event: *f.Event, TS: *f.TS, Nonce: *f.Nonce}
	if f.Detail != nil && string(*f.Detail) != "null" {
		r.Detail = *f.Detail
	}
	if err := r.validate(); err != nil {
		return Report{}, err
	}
	if !fresh(r.TS, now) {
		return Report{}, errors.New("l1: ts is outside the accepted window")
	}
	return r, nil
}
