package qos

import (
	"strings"
	"testing"
)

// TestShaperShownAndDiffed: a queue's shaper is in config show's scheduler
// column, in the flattened settings regress and config diff compare, and
// a percent is taken of the speed the port runs at.
func TestShaperShownAndDiffed(t *testing.T) {
	_, cfgs := lintBase(t)
	before := Summarize(&cfgs[0])
	p := cfgs[0].Port("Ethernet0")
	p.Queue(3).Shaper = &Shaper{Percent: 40, BurstBytes: 65536}
	rows := ClassTable(&cfgs[0], "Ethernet0", []int{3})
	if len(rows) != 1 || !strings.HasSuffix(rows[0].Scheduler, ", shaped 40% of the port burst 65536 B") {
		t.Errorf("config show's scheduler: %+v", rows)
	}
	d := DiffSettings([]Settings{before}, []Settings{Summarize(&cfgs[0])})
	if len(d) != 1 || d[0].Field != "queue.3.shaper" || d[0].A != "" || d[0].B != "40% of the port burst 65536 B" {
		t.Errorf("the settings' difference: %+v", d)
	}
	p.Shaper = &Shaper{RateKbps: 50_000_000}
	rows = ClassTable(&cfgs[0], "Ethernet0", []int{3})
	if len(rows) != 1 || !strings.HasSuffix(rows[0].Scheduler, ", port shaped 50 Gb/s") {
		t.Errorf("config show's scheduler on a shaped port: %+v", rows)
	}
	d = DiffSettings([]Settings{before}, []Settings{Summarize(&cfgs[0])})
	if len(d) != 2 || d[0].Field != "queue.3.shaper" || d[1].Field != "shaper" || d[1].B != "50 Gb/s" {
		t.Errorf("the settings' differences with the port shaped: %+v", d)
	}
	if got := p.Shaper.RateKbpsAt(p.RunSpeedGbps()); got != 50_000_000 {
		t.Errorf("the port's shaper: %d kb/s", got)
	}
	p.LinkSpeedGbps = 400
	if got := p.Queue(3).Shaper.RateKbpsAt(p.RunSpeedGbps()); got != 160_000_000 {
		t.Errorf("40%% of a 400G link: %d kb/s", got)
	}
}
