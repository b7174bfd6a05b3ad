package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestHumanHandler(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 12, 1, 2, 345_000_000, time.UTC)
	var buf bytes.Buffer
	h := newHumanHandler(&buf, slog.LevelInfo)
	log := slog.New(h)
	rec := func(l *slog.Logger, level slog.Level, msg string, args ...any) {
		r := slog.NewRecord(at, level, msg, 0)
		r.Add(args...)
		if l.Handler().Enabled(context.Background(), level) {
			if err := l.Handler().Handle(context.Background(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	rec(log, slog.LevelInfo, "starting variant ecn=on,pfc=on (2 of 4)")
	rec(log, slog.LevelWarn, "no live status of lab 16gpu", "err", errors.New("state.json: permission denied"))
	rec(log, slog.LevelInfo, "pushed", "device", "leaf1", "took", 1500*time.Millisecond, "note", "two words", "empty", "")
	rec(log.With("lab", "64gpu").WithGroup("push"), slog.LevelInfo, "retry", "attempt", 2)
	rec(log, slog.LevelDebug, "not shown at -v")
	want := "12:01:02 info  starting variant ecn=on,pfc=on (2 of 4)\n" +
		"12:01:02 warn  no live status of lab 16gpu: state.json: permission denied\n" +
		"12:01:02 info  pushed device=leaf1 took=1.5s note=\"two words\" empty=\"\"\n" +
		"12:01:02 info  retry lab=64gpu push.attempt=2\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}

	// -vv: debug lines, and the time to the millisecond.
	buf.Reset()
	rec(slog.New(newHumanHandler(&buf, slog.LevelDebug)), slog.LevelDebug, "read back leaf1")
	if got := buf.String(); got != "12:01:02.345 debug read back leaf1\n" {
		t.Errorf("debug line %q", got)
	}
}

// labctl -v logs messages, not slog's key=value records.
func TestVerboseLogsAreMessages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "up", "16gpu", "--dir", dir, "-v")
	if code != 0 {
		t.Fatalf("up: exit %d\n%s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d info  lab 16gpu is up in the simulator: 2 switches, 2 hosts`).MatchString(stderr) {
		t.Errorf("-v does not log the lab coming up as a message:\n%s", stderr)
	}
	if strings.Contains(stderr, "level=") || strings.Contains(stderr, "msg=") {
		t.Errorf("-v logs key=value records:\n%s", stderr)
	}
}
