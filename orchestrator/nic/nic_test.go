package nic

import (
	"errors"
	"strings"
	"testing"
)

func TestPresetsValid(t *testing.T) {
	for _, line := range []float64{25, 100, 200, 400, 800} {
		for _, name := range append(Presets(), "", "mellanox") {
			d, canon, err := Preset(name, line)
			if err != nil {
				t.Fatalf("%s at %vG: %v", name, line, err)
			}
			if err := d.Validate(); err != nil {
				t.Errorf("preset %s (%s) at %vG is invalid: %v", name, canon, line, err)
			}
		}
	}
	if _, _, err := Preset("dctcp", 100); err == nil {
		t.Error("unknown preset accepted")
	}
}

// A scenario's nic section overrides the lab's field by field, and the
// last preset named wins.
func TestResolveOrder(t *testing.T) {
	ai, ai2, to := 20.0, 40.0, 10
	lab := &Spec{DCQCN: &DCQCNSpec{RPGAIRate: &ai}, QPTimeout: &to}
	st, err := Resolve(100, 48, lab)
	if err != nil {
		t.Fatal(err)
	}
	if st.Preset != PresetConnectX || st.DCQCN.RPGAIRateMbps != 20 || st.DCQCN.RPGTimeResetUs != 300 || st.QPTimeout != 10 || st.CNPDSCP != 48 {
		t.Errorf("lab only: %+v", st)
	}
	scen := &Spec{DCQCN: &DCQCNSpec{Preset: PresetPaper, RPGAIRate: &ai2}}
	st, err = Resolve(100, 48, lab, scen)
	if err != nil {
		t.Fatal(err)
	}
	if st.Preset != PresetPaper || st.DCQCN.RPGAIRateMbps != 40 || st.DCQCN.RPGTimeResetUs != 55 || st.QPTimeout != 10 {
		t.Errorf("lab then scenario: %+v", st)
	}
}

func TestResolveNamesTheField(t *testing.T) {
	g, rc := 1500, 9
	minRate, maxRate, lineRate := 5000.0, 1000.0, 100_000.0
	for _, tc := range []struct {
		spec  *Spec
		field string
	}{
		{&Spec{DCQCN: &DCQCNSpec{DCETCPG: &g}}, "dcqcn.dce_tcp_g"},
		{&Spec{RetryCnt: &rc}, "retry_cnt"},
		{&Spec{DCQCN: &DCQCNSpec{Preset: "x"}}, "dcqcn.preset"},
		// The lowest rate above the highest, or at the line rate (100G).
		{&Spec{DCQCN: &DCQCNSpec{RPGMinRate: &minRate, RPGMaxRate: &maxRate}}, "dcqcn.rpg_min_rate"},
		{&Spec{DCQCN: &DCQCNSpec{RPGMinRate: &lineRate}}, "dcqcn.rpg_min_rate"},
	} {
		_, err := Resolve(100, 48, tc.spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || fe.Fix == "" {
			t.Errorf("want a FieldError on %s with a fix, got %v", tc.field, err)
		}
	}
	// Just below the line rate, and below a set maximum, are settings.
	below, maxOK := 99_999.0, 10_000.0
	if _, err := Resolve(100, 48, &Spec{DCQCN: &DCQCNSpec{RPGMinRate: &below}}); err != nil {
		t.Errorf("rpg_min_rate just below the line rate: %v", err)
	}
	if _, err := Resolve(100, 48, &Spec{DCQCN: &DCQCNSpec{RPGMinRate: &minRate, RPGMaxRate: &maxOK}}); err != nil {
		t.Errorf("rpg_min_rate below rpg_max_rate: %v", err)
	}
}

// TestRateFixesGiveTheRange: a DCQCN rate out of range is refused with the
// range that is accepted, where the fix said only "use a rate in Mb/s" to
// someone who had written -5.
func TestRateFixesGiveTheRange(t *testing.T) {
	neg := -5.0
	for _, tc := range []struct {
		spec  *DCQCNSpec
		field string
	}{
		{&DCQCNSpec{RPGAIRate: &neg}, "dcqcn.rpg_ai_rate"},
		{&DCQCNSpec{RPGHAIRate: &neg}, "dcqcn.rpg_hai_rate"},
		{&DCQCNSpec{RPGMaxRate: &neg}, "dcqcn.rpg_max_rate"},
		{&DCQCNSpec{RPGMinRate: &neg}, "dcqcn.rpg_min_rate"},
		{&DCQCNSpec{RateToSetOnFirstCNP: &neg}, "dcqcn.rate_to_set_on_first_cnp"},
	} {
		_, err := Resolve(100, 48, &Spec{DCQCN: tc.spec})
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Fix, "10000000 Mb/s") {
			t.Errorf("%s -5: want a fix giving the range up to 10000000 Mb/s, got %v", tc.field, err)
		}
	}
}

func TestParamsNameEverySetting(t *testing.T) {
	st, _ := Resolve(100, 48)
	seen := map[string]bool{}
	for _, p := range st.Params() {
		if p.Name == "" || p.Value == "" || seen[p.Name] {
			t.Errorf("bad or repeated param %+v", p)
		}
		seen[p.Name] = true
	}
	if len(seen) != 24 {
		t.Errorf("%d params, want the 17 DCQCN ones, the CNP marking and moderation, the QP's 3 and out-of-order placement", len(seen))
	}
}
