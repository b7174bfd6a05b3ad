package scenario

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labctl/labctl/orchestrator/plural"
	"github.com/labctl/labctl/orchestrator/runtime"
)

// progressBoard shows the running variants on one terminal line, updated
// in place: each one's simulated time reached, share done, events per
// second and an estimate of the wall time left. Finished variants get a
// line of their own above it. It also logs the same at info level
// (labctl -v).
type progressBoard struct {
	mu      sync.Mutex
	w       io.Writer
	log     *slog.Logger
	total   int
	started int
	rows    map[int]*progressRow
	drawn   bool
	lastLog time.Time
	now     func() time.Time
}

type progressRow struct {
	name  string
	began time.Time
	p     runtime.Progress
}

func newProgressBoard(w io.Writer, log *slog.Logger, total int) *progressBoard {
	return &progressBoard{w: w, log: log, total: total, rows: map[int]*progressRow{}, now: time.Now}
}

func (b *progressBoard) start(i int, name string, flows int, duration, runtimeName string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.started++
	b.rows[i] = &progressRow{name: name, began: b.now()}
	what := fmt.Sprintf("%s, %s %s", plural.N(flows, "flow"), duration, runtimeName)
	b.printLocked(fmt.Sprintf("[%d/%d] %s: %s", b.started, b.total, name, what))
	b.log.Info(fmt.Sprintf("starting variant %s (%d of %d): %s", name, b.started, b.total, what))
}

// reporter returns the callback variant i's runtime calls as it goes.
func (b *progressBoard) reporter(i int, name string) func(runtime.Progress) {
	return func(p runtime.Progress) {
		b.mu.Lock()
		defer b.mu.Unlock()
		row := b.rows[i]
		if row == nil {
			return
		}
		row.p = p
		b.drawLocked()
		if t := b.now(); t.Sub(b.lastLog) >= 5*time.Second {
			b.lastLog = t
			b.log.Info(fmt.Sprintf("variant %s: simulated %s of %s, %.0f%% done, %d events", name, fmtSim(p.SimulatedNs), fmtSim(p.TotalNs), 100*doneShare(p), p.Events))
		}
	}
}

func (b *progressBoard) finish(i int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.rows, i)
}

// line prints a finished variant's line above the live one.
func (b *progressBoard) line(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.printLocked("      " + msg)
	b.log.Info(strings.TrimSpace(msg))
}

func (b *progressBoard) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.clearLocked()
}

func (b *progressBoard) printLocked(msg string) {
	if b.w == nil {
		return
	}
	b.clearLocked()
	fmt.Fprintln(b.w, msg)
	b.drawLocked()
}

func (b *progressBoard) clearLocked() {
	if b.w != nil && b.drawn {
		fmt.Fprint(b.w, "\r\033[K")
		b.drawn = false
	}
}

// drawLocked redraws the live line: per running variant, simulated time
// of the total, the share done, events/s, and the ETA from the share done
// so far and the wall time it took.
func (b *progressBoard) drawLocked() {
	if b.w == nil {
		return
	}
	keys := make([]int, 0, len(b.rows))
	for k := range b.rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		r := b.rows[k]
		if r.p.TotalNs == 0 {
			continue
		}
		el := b.now().Sub(r.began).Seconds()
		frac := doneShare(r.p)
		part := fmt.Sprintf("%s %s/%s %.0f%%", r.name, fmtSim(r.p.SimulatedNs), fmtSim(r.p.TotalNs), 100*frac)
		if el > 0 {
			part += fmt.Sprintf(" %.1fM ev/s", float64(r.p.Events)/el/1e6)
			if frac > 0.01 {
				part += fmt.Sprintf(" ETA %s", (time.Duration(el * (1 - frac) / frac * 1e9)).Round(time.Second))
			}
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return
	}
	b.clearLocked()
	fmt.Fprint(b.w, strings.Join(parts, " | "))
	b.drawn = true
}

// doneShare is the share of a variant done: the runtime's measure of its
// work when it gives one (the simulator ends a run when its sized traffic
// is delivered, often long before the duration), else the simulated
// time's share of the total.
func doneShare(p runtime.Progress) float64 {
	if p.Done > 0 {
		return min(p.Done, 1)
	}
	if p.TotalNs <= 0 {
		return 0
	}
	return min(float64(p.SimulatedNs)/float64(p.TotalNs), 1)
}

func fmtSim(ns int64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.1fms", float64(ns)/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.0fus", float64(ns)/1e3)
	}
	return fmt.Sprintf("%dns", ns)
}
