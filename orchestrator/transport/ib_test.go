package transport

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestResolveIBDefaults(t *testing.T) {
	st, err := ResolveIB()
	if err != nil {
		t.Fatal(err)
	}
	if st.Routing != "ftree" || st.VLs != 4 || st.AdaptiveRouting || st.CC.Enabled || st.VLBufferKB != 0 {
		t.Errorf("defaults: %+v", st)
	}
	// OpenSM's table folded onto 4 VLs: SL i -> VL i mod 4, SL 15 -> 7 mod 4.
	want := []int{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}
	if !slices.Equal(st.SL2VL, want) {
		t.Errorf("sl2vl %v, want %v", st.SL2VL, want)
	}
	if len(st.CC.CCT) != 128 || st.CC.CCTILimit != 127 || st.CC.CCT[3].IPD() != 24 {
		t.Errorf("CCT %d entries, limit %d, entry 3 %v", len(st.CC.CCT), st.CC.CCTILimit, st.CC.CCT[3])
	}
}

func TestResolveIBOverrides(t *testing.T) {
	lab := &IBSpec{Routing: ptr("updn"), VLs: ptr(8), CC: &IBCCSpec{Enabled: ptr(true), Threshold: ptr(12)}}
	scen := &IBSpec{Routing: ptr("minhop"), CC: &IBCCSpec{CCT: []string{"0:0", "1:3", "2:5"}}}
	st, err := ResolveIB(lab, nil, scen)
	if err != nil {
		t.Fatal(err)
	}
	if st.Routing != "minhop" || st.VLs != 8 || !st.CC.Enabled || st.CC.Threshold != 12 {
		t.Errorf("overrides: %+v", st)
	}
	if st.SL2VL[15] != 7 || st.SL2VL[9] != 1 {
		t.Errorf("sl2vl on 8 VLs: %v", st.SL2VL)
	}
	if st.CC.CCTILimit != 2 || st.CC.CCT[1].IPD() != 6 || st.CC.CCT[2].IPD() != 20 {
		t.Errorf("CCT %v limit %d", st.CC.CCT, st.CC.CCTILimit)
	}
}

func TestResolveIBErrorsNameTheField(t *testing.T) {
	cases := map[string]*IBSpec{
		"routing":          {Routing: ptr("lash")},
		"vls":              {VLs: ptr(3)},
		"sl2vl":            {SL2VL: []int{0, 1}},
		"vl_buffer_kb":     {VLBufferKB: ptr(4)},
		"cc.threshold":     {CC: &IBCCSpec{Threshold: ptr(16)}},
		"cc.marking_rate":  {CC: &IBCCSpec{MarkingRate: ptr(-1)}},
		"cc.ccti_limit":    {CC: &IBCCSpec{CCTILimit: ptr(128)}},
		"cc.ccti_timer":    {CC: &IBCCSpec{CCTITimer: ptr(0)}},
		"cc.ccti_min":      {CC: &IBCCSpec{CCTILimit: ptr(10), CCTIMin: ptr(11)}},
		"cc.cct":           {CC: &IBCCSpec{CCT: []string{"4:1"}}},
		"cc.ccti_increase": {CC: &IBCCSpec{CCTIIncrease: ptr(256)}},
	}
	// A negative limit written out is no index (left out, -1 stands for
	// the table's last).
	cases["cc.ccti_limit negative"] = &IBSpec{CC: &IBCCSpec{CCTILimit: ptr(-1)}}
	for name, spec := range cases {
		field, _, _ := strings.Cut(name, " ")
		_, err := ResolveIB(spec)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != field || fe.Fix == "" {
			t.Errorf("%s: got %v, want a FieldError for %s with a fix", field, err, field)
		}
	}
	// An SL mapped beyond the data VLs is refused.
	sl := make([]int, 16)
	sl[5] = 4
	if _, err := ResolveIB(&IBSpec{SL2VL: sl}); err == nil {
		t.Error("SL 5 on VL 4 of 4 VLs accepted")
	}
	// Through Resolve, the section is prefixed.
	_, err := Resolve(InfiniBand, []*IBSpec{{VLs: ptr(5)}}, nil)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "infiniband.vls" {
		t.Errorf("Resolve: %v", err)
	}
}

func TestIBVLBufferKB(t *testing.T) {
	// 400 Gb/s: (1000 ns + 82.4 ns) x 50 B/ns + 2 x 4122 B = 62364 B.
	if got := IBVLBufferKB(400, 4096); got != 61 {
		t.Errorf("400G: %d KiB, want 61", got)
	}
	if got := IBVLBufferKB(100, 4096); got >= IBVLBufferKB(400, 4096) {
		t.Errorf("100G buffer %d KiB not below 400G's", got)
	}
}

func ptr[T any](v T) *T { return &v }
