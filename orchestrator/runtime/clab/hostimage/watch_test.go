package hostimage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// errStalled is why a watched build was cancelled: it printed nothing for
// too long.
var errStalled = errors.New("no progress")

// progressWatch bounds a long build by its progress, not by the clock: the
// build's context is cancelled when nothing is written to the watch for
// stall, however long the whole build takes while it moves. A busy machine
// makes a build slower, not silent; a hung mirror or engine makes it
// silent.
type progressWatch struct {
	w     io.Writer
	mu    sync.Mutex
	last  time.Time
	stall time.Duration
}

// watchProgress returns a context cancelled (with cause errStalled) once
// the returned writer has been silent for stall, and the writer, which
// passes everything on to w.
func watchProgress(ctx context.Context, w io.Writer, stall time.Duration) (context.Context, *progressWatch, context.CancelFunc) {
	p := &progressWatch{w: w, last: time.Now(), stall: stall}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(min(stall/4, time.Second))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				if quiet := p.quiet(); quiet >= stall {
					cancel(fmt.Errorf("%w for %v", errStalled, quiet.Round(time.Millisecond)))
					return
				}
			}
		}
	}()
	var once sync.Once
	return ctx, p, func() { once.Do(func() { close(done) }); cancel(context.Canceled) }
}

func (p *progressWatch) quiet() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Since(p.last)
}

func (p *progressWatch) Write(b []byte) (int, error) {
	p.mu.Lock()
	p.last = time.Now()
	p.mu.Unlock()
	return p.w.Write(b)
}

// A build that keeps printing runs as long as it needs, well past its
// stall limit; one that falls silent is stopped, with the reason.
func TestProgressWatch(t *testing.T) {
	const stall = 150 * time.Millisecond
	ctx, w, stop := watchProgress(context.Background(), io.Discard, stall)
	for range 20 { // 20 x 25 ms: three times the stall limit in all
		time.Sleep(25 * time.Millisecond)
		fmt.Fprintln(w, "I: Retrieving a package")
		if ctx.Err() != nil {
			t.Fatalf("a build that prints was cancelled: %v", context.Cause(ctx))
		}
	}
	stop()

	ctx, _, stop = watchProgress(context.Background(), io.Discard, stall)
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a silent build was not cancelled")
	}
	if !errors.Is(context.Cause(ctx), errStalled) {
		t.Errorf("cause %v, want errStalled", context.Cause(ctx))
	}
}
