package clab

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/labctl/labctl/orchestrator/plural"
)

// PushJob is one device's configuration push. Push connects, applies the
// configuration, reads the running configuration back and returns it.
type PushJob struct {
	Device string
	Push   func(ctx context.Context) (readback string, err error)
}

// PushOptions bounds a fan-out of pushes.
type PushOptions struct {
	// Parallel is how many devices are pushed at once; 0 means 8.
	Parallel int
	// Attempts is how often a push is tried when it fails to connect; 0
	// means 3. Only connection failures are retried: a rejected config
	// line fails the same way every time.
	Attempts int
	// Backoff is the wait before the first retry, doubled for each next
	// one; 0 means 2s. Switches still booting refuse SSH for a while.
	Backoff time.Duration
	// PerDevice bounds each attempt; 0 means 5 minutes.
	PerDevice time.Duration
	// Progress, when set, gets one line per finished device.
	Progress func(line string)
}

// PushResult is one device's outcome.
type PushResult struct {
	Device   string
	Attempts int
	Readback string
	Err      error
}

// Retryable is what push errors implement to say a retry may succeed (the
// device was unreachable, refused the connection or closed it).
type Retryable interface{ Retryable() bool }

// IsRetryable reports whether err says a retry may succeed.
func IsRetryable(err error) bool {
	var r Retryable
	return errors.As(err, &r) && r.Retryable()
}

// PushAll runs the jobs, at most opt.Parallel at a time, and returns one
// result per job sorted by device name. It returns when every job is done
// or ctx is cancelled; cancelled jobs carry ctx's error.
func PushAll(ctx context.Context, jobs []PushJob, opt PushOptions) []PushResult {
	if opt.Parallel <= 0 {
		opt.Parallel = 8
	}
	if opt.Attempts <= 0 {
		opt.Attempts = 3
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 2 * time.Second
	}
	if opt.PerDevice <= 0 {
		opt.PerDevice = 5 * time.Minute
	}
	results := make([]PushResult, len(jobs))
	sem := make(chan struct{}, opt.Parallel)
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	for i, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				results[i] = PushResult{Device: job.Device, Err: fmt.Errorf("push to %s: %w", job.Device, ctx.Err())}
				return
			}
			defer func() { <-sem }()
			results[i] = pushOne(ctx, job, opt)
			if opt.Progress != nil {
				progressMu.Lock()
				r := results[i]
				if r.Err != nil {
					opt.Progress(fmt.Sprintf("%s: failed after %s: %v", r.Device, plural.N(r.Attempts, "attempt"), r.Err))
				} else {
					opt.Progress(fmt.Sprintf("%s: configuration applied and read back", r.Device))
				}
				progressMu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.SliceStable(results, func(a, b int) bool { return results[a].Device < results[b].Device })
	return results
}

func pushOne(ctx context.Context, job PushJob, opt PushOptions) PushResult {
	res := PushResult{Device: job.Device}
	wait := opt.Backoff
	for attempt := 1; ; attempt++ {
		res.Attempts = attempt
		actx, cancel := context.WithTimeout(ctx, opt.PerDevice)
		rb, err := job.Push(actx)
		cancel()
		if err == nil {
			res.Readback = rb
			res.Err = nil
			return res
		}
		res.Err = err
		if attempt >= opt.Attempts || !IsRetryable(err) || ctx.Err() != nil {
			return res
		}
		select {
		case <-ctx.Done():
			res.Err = fmt.Errorf("%w (retry of %s cancelled)", err, job.Device)
			return res
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// PushErrors joins the failed results into one error, or returns nil.
func PushErrors(results []PushResult) error {
	var errs []error
	for _, r := range results {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %s failed: %w", len(errs), plural.N(len(results), "device"), errors.Join(errs...))
}
