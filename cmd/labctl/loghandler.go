package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
)

// humanHandler writes log records (-v, -vv) as a person reads them, one
// line each: the time, the level and the message, then the details that
// add something:
//
//	12:01:02 info  starting variant ecn=on,pfc=on (2 of 4): 9 flows, 20ms sim
//	12:01:03 warn  no topology diagram for the report: open topologies/16gpu/16gpu.mmd: no such file
//	12:01:03 debug pushed leaf1 attempt=2
//
// An error attribute ("err") follows the message after a colon, as the
// errors it carries are written to read; other attributes follow as
// key=value, quoted when they hold spaces. At debug level (-vv) the time
// has milliseconds.
type humanHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	// attrs are the attributes of With, formatted; prefix the groups of
	// WithGroup ("a.b.").
	attrs  string
	prefix string
	now    func() time.Time
}

func newHumanHandler(w io.Writer, level slog.Leveler) *humanHandler {
	return &humanHandler{mu: &sync.Mutex{}, w: w, level: level, now: time.Now}
}

func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	t := r.Time
	if t.IsZero() {
		t = h.now()
	}
	layout := "15:04:05"
	if h.level.Level() <= slog.LevelDebug {
		layout = "15:04:05.000"
	}
	b.WriteString(t.Format(layout))
	b.WriteByte(' ')
	fmt.Fprintf(&b, "%-5s ", strings.ToLower(r.Level.String()))
	b.WriteString(r.Message)
	var errs, rest strings.Builder
	r.Attrs(func(a slog.Attr) bool {
		h.writeAttr(&errs, &rest, h.prefix, a)
		return true
	})
	b.WriteString(errs.String())
	b.WriteString(h.attrs)
	b.WriteString(rest.String())
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// writeAttr formats one attribute: errors to errs (": the error"), the
// rest to rest (" key=value"); a group's attributes get its name as a
// prefix.
func (h *humanHandler) writeAttr(errs, rest *strings.Builder, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, ga := range v.Group() {
			h.writeAttr(errs, rest, p, ga)
		}
		return
	}
	if _, isErr := v.Any().(error); isErr || a.Key == "err" || a.Key == "error" {
		errs.WriteString(": ")
		errs.WriteString(v.String())
		return
	}
	s := v.String()
	if v.Kind() == slog.KindDuration {
		s = v.Duration().String()
	}
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		s = strconv.Quote(s)
	}
	fmt.Fprintf(rest, " %s%s=%s", prefix, a.Key, s)
}

func (h *humanHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	c := *h
	var errs, rest strings.Builder
	for _, a := range attrs {
		h.writeAttr(&errs, &rest, h.prefix, a)
	}
	// An error given to With reads as a detail too: its key says what it is.
	if errs.Len() > 0 {
		rest.WriteString(" err=" + strconv.Quote(strings.TrimPrefix(errs.String(), ": ")))
	}
	c.attrs += rest.String()
	return &c
}

func (h *humanHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.prefix += name + "."
	return &c
}
