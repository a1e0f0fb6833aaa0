package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"hostgate/internal/hosts"
)

// HostCreator creates hosts with install credentials (hosts.Service).
type HostCreator interface {
	Create(ctx context.Context, owner, name string, listenPort *int, withCredentials bool) (hosts.Host, *hosts.Credentials, error)
}

// Provision creates n hosts for owner with fresh install credentials,
// workers at a time, through the hosts service itself: the bulk,
// operator-only path (no HTTP route) that load tests use.
func Provision(ctx context.Context, hc HostCreator, owner string, n, workers int) ([]hosts.Credentials, error) {
	out := make([]hosts.Credentials, n)
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	var mu sync.Mutex
	for i := range n {
		g.Go(func() error {
			_, c, err := hc.Create(ctx, owner, fmt.Sprintf("fleet-%06d", i), nil, true)
			if err != nil {
				return fmt.Errorf("fleet: create host %d: %w", i, err)
			}
			mu.Lock()
			out[i] = *c
			mu.Unlock()
			return nil
		})
	}
	return out, g.Wait()
}

// WriteCredentials writes one JSON object a line.
func WriteCredentials(w io.Writer, creds []hosts.Credentials) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, c := range creds {
		if err := enc.Encode(c); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadCredentials reads what WriteCredentials wrote.
func ReadCredentials(r io.Reader) ([]hosts.Credentials, error) {
	var out []hosts.Credentials
	dec := json.NewDecoder(r)
	for {
		var c hosts.Credentials
		err := dec.Decode(&c)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("fleet: credentials line %d: %w", len(out)+1, err)
		}
		out = append(out, c)
	}
}
