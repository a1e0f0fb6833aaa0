// Package periodic runs a flush-style job on a fixed interval for as long
// as a context lives, and once more when it ends, so batched work is not
// lost at shutdown.
package periodic

import (
	"context"
	"time"
)

// finalTimeout bounds the last run after the context has ended.
const finalTimeout = 5 * time.Second

// Run calls job every interval until ctx ends, then once more with a fresh
// short deadline. Errors go to onErr; the loop keeps going.
func Run(ctx context.Context, interval time.Duration, job func(context.Context) error, onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalTimeout)
			defer cancel()
			if err := job(final); err != nil {
				onErr(err)
			}
			return
		case <-t.C:
			if err := job(ctx); err != nil {
				onErr(err)
			}
		}
	}
}
