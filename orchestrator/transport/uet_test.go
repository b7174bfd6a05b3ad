package transport

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/labctl/labctl/orchestrator/specdoc"
)

func TestResolveUETDefaultsAndOverrides(t *testing.T) {
	st, err := ResolveUET()
	if err != nil {
		t.Fatal(err)
	}
	if st != DefaultUET() {
		t.Errorf("no spec: %+v, want the defaults %+v", st, DefaultUET())
	}
	lb, evs, off := UETLBOblivious, 128, false
	rto := 72.9
	st, err = ResolveUET(&UETSpec{LB: &lb, EVs: &evs}, nil, &UETSpec{Trimming: &off, RTOUs: &rto})
	if err != nil {
		t.Fatal(err)
	}
	if st.LB != lb || st.EVs != evs || st.Trimming || st.RTOUs != rto || st.CC != UETCCNSCC {
		t.Errorf("lab then scenario: %+v", st)
	}
}

func TestResolveUETErrorsNameFieldAndFix(t *testing.T) {
	str := func(s string) *string { return &s }
	num := func(x int) *int { return &x }
	fl := func(x float64) *float64 { return &x }
	yes := true
	none := UETCCNone
	for _, c := range []struct {
		spec  UETSpec
		field string
	}{
		{UETSpec{LB: str("spray")}, "lb"},
		{UETSpec{EVs: num(0)}, "evs"},
		{UETSpec{TrimBytes: num(32)}, "trim_bytes"},
		{UETSpec{CC: str("dcqcn")}, "cc"},
		{UETSpec{RCCC: &yes, CC: &none}, "rccc"},
		{UETSpec{TargetQDelayUs: fl(-1)}, "target_qdelay_us"},
		{UETSpec{QAGate: num(0)}, "qa_gate"},
		{UETSpec{Gamma: fl(1.5)}, "gamma"},
		{UETSpec{DelayAlpha: fl(0)}, "delay_alpha"},
		{UETSpec{MaxCwndBDP: fl(0)}, "max_cwnd_bdp"},
		{UETSpec{RTOUs: fl(0)}, "rto_us"},
		{UETSpec{AckBytes: num(0)}, "ack_bytes"},
		// -1 is "no timer"; other negatives (and -Inf, which the run
		// record cannot hold) are mistakes.
		{UETSpec{AckTimerUs: fl(-5)}, "ack_timer_us"},
		{UETSpec{AckTimerUs: fl(math.Inf(-1))}, "ack_timer_us"},
		{UETSpec{AckTimerUs: fl(math.NaN())}, "ack_timer_us"},
		{UETSpec{SACKReorderPkts: num(-1)}, "sack_reorder_pkts"},
	} {
		_, err := ResolveUET(&c.spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || fe.Fix == "" {
			t.Errorf("%+v: error %v, want a FieldError for %s with a fix", c.spec, err, c.field)
		}
	}
	if _, err := ResolveUET(&UETSpec{AckTimerUs: fl(-1)}); err != nil {
		t.Errorf("ack_timer_us -1 (no timer): %v", err)
	}
	// Resolve puts the section in front.
	_, err := Resolve(UET, nil, []*UETSpec{{LB: str("x")}})
	if err == nil || !strings.HasPrefix(err.Error(), "uet.lb: ") {
		t.Errorf("Resolve: %v, want uet.lb: ...", err)
	}
}

// Every key of the uet section is documented with a default.
func TestUETKeyDocs(t *testing.T) {
	docs := specdoc.Table{}.With("uet", UETKeyDocs)
	type section struct {
		UET UETSpec `yaml:"uet"`
	}
	if errs := specdoc.Check(reflect.TypeOf(section{}), docs, "uet section", "UETKeyDocs"); len(errs) > 0 {
		t.Error(errors.Join(errs...))
	}
	for _, p := range specdoc.Paths(reflect.TypeOf(UETSpec{})) {
		if UETKeyDocs[p].Default == "" {
			t.Errorf("uet.%s has no default", p)
		}
	}
}
