package sysops

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"hostgate/internal/eventually"
)

func TestGuardedReturnsResult(t *testing.T) {
	g := &guard{}
	v, err := guarded(context.Background(), g, "k", time.Second, func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Fatalf("got %d, %v", v, err)
	}
	_, err = guarded(context.Background(), g, "k", time.Second, func() (int, error) { return 0, errFake })
	if !errors.Is(err, errFake) {
		t.Fatalf("err = %v, want the call's error", err)
	}
}

func TestGuardedSkipsStuckKeyUntilItReturns(t *testing.T) {
	g := &guard{}
	release := make(chan struct{})
	returned := make(chan struct{})
	_, err := guarded(context.Background(), g, "k", 20*time.Millisecond, func() (int, error) {
		<-release
		defer close(returned)
		return 1, nil
	})
	if err == nil {
		t.Fatal("a call past its limit gave no error")
	}
	_, err = guarded(context.Background(), g, "k", time.Second, func() (int, error) { return 2, nil })
	if !errors.Is(err, errStillStuck) {
		t.Fatalf("err = %v, want errStillStuck", err)
	}
	if v, err := guarded(context.Background(), g, "other", time.Second, func() (int, error) { return 3, nil }); v != 3 || err != nil {
		t.Fatalf("another key: %d, %v", v, err)
	}
	close(release)
	<-returned
	eventually.Error(t, 5*time.Second, "key usable again", func() error {
		v, err := guarded(context.Background(), g, "k", time.Second, func() (int, error) { return 4, nil })
		if err == nil && v != 4 {
			err = fmt.Errorf("got %d, want 4", v)
		}
		return err
	})
}

func TestGuardedStopsAtContextEnd(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	release := make(chan struct{})
	defer close(release)
	_, err := guarded(ctx, &guard{}, "k", time.Minute, func() (int, error) { <-release; return 0, nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
