package clab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type connErr struct{}

func (connErr) Error() string   { return "connection refused" }
func (connErr) Retryable() bool { return true }

func TestPushAllBoundsParallelism(t *testing.T) {
	var running, peak atomic.Int32
	var jobs []PushJob
	for i := range 10 {
		jobs = append(jobs, PushJob{Device: fmt.Sprintf("leaf%02d", i), Push: func(ctx context.Context) (string, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(5 * time.Millisecond)
			running.Add(-1)
			return "running config", nil
		}})
	}
	res := PushAll(context.Background(), jobs, PushOptions{Parallel: 3})
	if peak.Load() > 3 {
		t.Errorf("%d pushes ran at once, bound is 3", peak.Load())
	}
	if len(res) != 10 || res[0].Device != "leaf00" || res[9].Device != "leaf09" {
		t.Fatalf("results not one per device in order: %+v", res)
	}
	if err := PushErrors(res); err != nil {
		t.Fatal(err)
	}
}

func TestPushAllRetriesOnlyConnectionFailures(t *testing.T) {
	var flaky, rejected atomic.Int32
	jobs := []PushJob{
		{Device: "flaky", Push: func(context.Context) (string, error) {
			if flaky.Add(1) < 3 {
				return "", fmt.Errorf("connect: %w", connErr{})
			}
			return "ok", nil
		}},
		{Device: "rejected", Push: func(context.Context) (string, error) {
			rejected.Add(1)
			return "", errors.New("line 3 rejected: % Invalid input")
		}},
		{Device: "down", Push: func(context.Context) (string, error) { return "", connErr{} }},
	}
	res := PushAll(context.Background(), jobs, PushOptions{Attempts: 3, Backoff: time.Millisecond})
	byDev := map[string]PushResult{}
	for _, r := range res {
		byDev[r.Device] = r
	}
	if r := byDev["flaky"]; r.Err != nil || r.Attempts != 3 || r.Readback != "ok" {
		t.Errorf("flaky = %+v", r)
	}
	if r := byDev["rejected"]; r.Err == nil || r.Attempts != 1 || rejected.Load() != 1 {
		t.Errorf("rejected = %+v (tried %d times)", r, rejected.Load())
	}
	if r := byDev["down"]; r.Err == nil || r.Attempts != 3 {
		t.Errorf("down = %+v", r)
	}
	err := PushErrors(res)
	if err == nil || !strings.Contains(err.Error(), "2 of 3 devices failed") || !strings.Contains(err.Error(), "% Invalid input") {
		t.Errorf("PushErrors = %v", err)
	}
}

func TestPushAllPerDeviceTimeout(t *testing.T) {
	jobs := []PushJob{{Device: "stuck", Push: func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}}
	res := PushAll(context.Background(), jobs, PushOptions{PerDevice: 10 * time.Millisecond})
	if !errors.Is(res[0].Err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", res[0].Err)
	}
}

func TestPushAllCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := PushAll(ctx, []PushJob{{Device: "a", Push: func(ctx context.Context) (string, error) { return "", ctx.Err() }}}, PushOptions{Parallel: 1})
	if !errors.Is(res[0].Err, context.Canceled) {
		t.Fatalf("err = %v", res[0].Err)
	}
}
