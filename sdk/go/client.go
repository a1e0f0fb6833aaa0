// Package hostgate is the Go client of the hostgate client API
// (/v1/api/*): hosts and their lifecycle, and the file, process, system
// and Windows operations carried out by a host's agent, each charged in
// tokens.
//
//	c := hostgate.New("https://hub.example.com", os.Getenv("HOSTGATE_API_KEY"))
//	res, err := c.Shell(ctx, hostID, "/bin/sh", "-c 'uname -a'", 30)
//	if hostgate.IsInsufficientBalance(err) { … recharge … }
//
// It depends on the standard library only. The Python and TypeScript
// SDKs have the same operations, parameter order, error type and controls
// values.
package hostgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Client calls the client API with one API key. It is safe for
// concurrent use.
type Client struct {
	base     string
	key      string
	http     *http.Client
	onCharge func(Charge)
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient uses hc instead of a client without overall timeout
// (operations such as Shell may legitimately run for up to an hour; bound
// them with the context).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// New returns a client of the hub at baseURL (e.g. https://hub.example.com)
// using apiKey ("ak_<id>.<secret>").
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{base: strings.TrimRight(baseURL, "/"), key: apiKey, http: &http.Client{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Error is a non-2xx answer: the HTTP status and the hub's {error,
// message}.
type Error struct {
	Status  int
	Code    string
	Message string
	// Charge is what the failed call cost, when it reached the hub's
	// charge step (a charge is not refunded when the command then fails,
	// e.g. 504 agent_timeout; a 402 took nothing and tells the balance);
	// nil otherwise.
	Charge *Charge
}

func (e *Error) Error() string {
	return fmt.Sprintf("hostgate: %d %s: %s", e.Status, e.Code, e.Message)
}

// ErrorCode is err's hub error code, or "" when err is not an *Error.
func ErrorCode(err error) string {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ""
}

// IsInsufficientBalance reports a 402: the balance does not cover the call.
func IsInsufficientBalance(err error) bool { return ErrorCode(err) == "insufficient_balance" }

// IsHostOffline reports a 409 host_offline: the host's agent is not
// connected.
func IsHostOffline(err error) bool { return ErrorCode(err) == "host_offline" }

// IsNotFound reports a 404: no such host, or not the key holder's.
func IsNotFound(err error) bool { return ErrorCode(err) == "not_found" }

// IsAgentTimeout reports a 504: the agent did not answer in time.
func IsAgentTimeout(err error) bool { return ErrorCode(err) == "agent_timeout" }

// do sends a request with a JSON body (nil for none) and decodes a JSON
// answer into out (nil to discard it).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("hostgate: encode request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("hostgate: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, b, err := c.send(ctx, req)
	if err != nil {
		return err
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("hostgate: decode answer: %w", err)
	}
	return nil
}

// send sends req and reads a 2xx answer's body; any other answer is an
// *Error. The charge the answer names is reported first (Charge).
func (c *Client) send(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("hostgate: %s %s: %w", req.Method, strings.TrimPrefix(req.URL.String(), c.base), err)
	}
	defer resp.Body.Close()
	charge := chargeOf(resp.Header)
	if charge != nil {
		c.reportCharge(ctx, *charge)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("hostgate: read answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		e := &Error{Status: resp.StatusCode, Charge: charge}
		if json.Unmarshal(b, &struct {
			Code    *string `json:"error"`
			Message *string `json:"message"`
		}{&e.Code, &e.Message}) != nil || e.Code == "" {
			e.Code, e.Message = fmt.Sprintf("http_%d", resp.StatusCode), strings.TrimSpace(string(b))
		}
		return nil, nil, e
	}
	return resp, b, nil
}
