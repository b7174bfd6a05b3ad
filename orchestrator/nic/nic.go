// Package nic holds the settings of the hosts' RDMA NICs that shape what a
// lab's traffic does: DCQCN's reaction-point (sender) and
// notification-point (receiver) parameters, named and in the units NVIDIA
// ConnectX NICs expose them (mlx5 sysfs ecn/roce_rp/* and ecn/roce_np/*,
// mlxconfig ROCE_CC_*), their presets, and the RC QP's loss recovery. It
// imports nothing of labctl: lab specs, scenarios and the simulator share
// these definitions.
package nic

import (
	"fmt"
	"math"
	"strconv"
)

// DCQCN is one NIC's DCQCN parameter set.
type DCQCN struct {
	// ClampTgtRate sets the target rate to the current rate at every cut
	// (clamp_tgt_rate). Without it the target is kept unless the rate was
	// raised since the last cut: by the timer when
	// ClampTgtRateAfterTimeInc (clamp_tgt_rate_after_time_inc), by the
	// byte counter always. Keeping the target lets a flow cut many times
	// in one burst climb straight back by fast recovery.
	ClampTgtRate             bool
	ClampTgtRateAfterTimeInc bool
	// RPGTimeResetUs is the rate-increase timer (rpg_time_reset, µs).
	RPGTimeResetUs int64
	// RPGByteReset is the byte counter: a rate-increase event per this
	// many bytes sent (rpg_byte_reset; 0 disables it).
	RPGByteReset int64
	// RPGThreshold is the number of increase events spent in fast
	// recovery before additive, then hyper increase (rpg_threshold, F).
	RPGThreshold int
	// RPGMaxRateMbps is the rate the limiter recovers to; reaching it
	// releases the limiter, so a flow no CNP cut is never held below line
	// rate by it (rpg_max_rate; 0 means line rate).
	RPGMaxRateMbps float64
	// RPGAIRateMbps and RPGHAIRateMbps are the additive and hyper
	// increase steps of the target rate (rpg_ai_rate, rpg_hai_rate).
	RPGAIRateMbps  float64
	RPGHAIRateMbps float64
	// RPGGd scales the cut: RC = RC·(1 − α/2^(rpg_gd−10)); 11 halves the
	// rate at α = 1 (rpg_gd is log2 of Gd with α in 1/1024 units).
	RPGGd int
	// RPGMinDecFac is the least share of the rate a cut keeps, in percent
	// (rpg_min_dec_fac; 0 means no floor, as in the paper).
	RPGMinDecFac int
	// RPGMinRateMbps is the lowest rate (rpg_min_rate).
	RPGMinRateMbps float64
	// RateToSetOnFirstCNPMbps is the current and target rate set when a
	// flow's first CNP allocates its rate limiter
	// (rate_to_set_on_first_cnp; 0 means line rate).
	RateToSetOnFirstCNPMbps float64
	// DCETCPG is the α gain as the NIC takes it (dce_tcp_g, 1/1024
	// units): g = (1024 − dce_tcp_g)/1024, so the default 1019 is
	// g = 5/1024 and the paper's g = 1/256 is 1020. NVIDIA's mlxconfig
	// database words the formula the other way round; the community DCQCN
	// page's formula, followed here, gives α a time constant of hundreds
	// of µs rather than one µs.
	DCETCPG int
	// DCETCPRTTUs is α's update period (dce_tcp_rtt, µs): every period
	// α = (1−g)·α + g if a CNP arrived in it, else (1−g)·α.
	DCETCPRTTUs int64
	// RateReduceMonitorPeriodUs: at most one cut per period, applied at
	// the period's end if a CNP arrived in it (rate_reduce_monitor_period,
	// µs). 0 cuts at every CNP, as the paper does.
	RateReduceMonitorPeriodUs int64
	// InitialAlphaValue is α at a flow's first CNP, in 1/1024 units
	// (initial_alpha_value; 1024 means exactly 1).
	InitialAlphaValue int
	// MinTimeBetweenCNPsUs is the notification point's CNP pacing: at
	// most one CNP per flow per this many µs (min_time_between_cnps).
	MinTimeBetweenCNPsUs int64
}

// Preset names.
const (
	PresetConnectX = "connectx"
	PresetPaper    = "paper"
	// presetMellanox is the older name of the ConnectX defaults.
	presetMellanox = "mellanox"
	// DefaultPreset is what a lab gets when neither it nor the scenario
	// names one: the NIC's own defaults.
	DefaultPreset = PresetConnectX
)

// Presets lists the preset names.
func Presets() []string { return []string{PresetConnectX, PresetPaper} }

// ConnectX returns the DCQCN defaults of NVIDIA ConnectX NICs (ConnectX-4
// and later firmware):
//   - reaction point: clamp_tgt_rate 0, clamp_tgt_rate_after_time_inc 1,
//     rpg_time_reset 300 µs, rpg_byte_reset 32767 B, rpg_threshold 1,
//     rpg_max_rate 0, rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s, rpg_gd 11,
//     rpg_min_dec_fac 50 %, rpg_min_rate 1 Mb/s, rate_to_set_on_first_cnp 0,
//     dce_tcp_g 1019, dce_tcp_rtt 1 µs, rate_reduce_monitor_period 4 µs,
//     initial_alpha_value 1023 — as `mlxconfig -d <dev> q` lists them on
//     a ConnectX-5 Ex (firmware 16.27) and NVIDIA's "DCQCN CC Parameters"
//     (DOCA 3.4) and community "DCQCN Parameters" pages document them;
//   - notification point: min_time_between_cnps 4 µs, the default given
//     for BlueField-3 (Peng et al., "Barre", USENIX ATC 2025, Table 2);
//     the ConnectX-5 query above shows 2 µs.
//
// Firmware releases differ: set the NIC's own values in the lab spec
// (nic.dcqcn) when they are known.
func ConnectX() DCQCN {
	return DCQCN{
		ClampTgtRate:              false,
		ClampTgtRateAfterTimeInc:  true,
		RPGTimeResetUs:            300,
		RPGByteReset:              32767,
		RPGThreshold:              1,
		RPGAIRateMbps:             5,
		RPGHAIRateMbps:            50,
		RPGGd:                     11,
		RPGMinDecFac:              50,
		RPGMinRateMbps:            1,
		DCETCPG:                   1019,
		DCETCPRTTUs:               1,
		RateReduceMonitorPeriodUs: 4,
		InitialAlphaValue:         1023,
		MinTimeBetweenCNPsUs:      4,
	}
}

// Paper returns the parameters of the DCQCN paper (Zhu et al., SIGCOMM
// 2015) on the NIC's machinery: a cut at every CNP with the target
// clamped, g = 1/256 every 55 µs, α starting at 1, a 55 µs timer and a
// 10 MiB byte counter, 5 fast-recovery steps, no floor on a cut, a
// 100 Mb/s minimum rate, CNPs at most every 50 µs per flow, and the
// additive and hyper increase steps scaled from their 40 Gb/s values
// (40 Mb/s, 200 Mb/s) to lineRateGbps.
func Paper(lineRateGbps float64) DCQCN {
	return DCQCN{
		ClampTgtRate:              true,
		RPGTimeResetUs:            55,
		RPGByteReset:              10 << 20,
		RPGThreshold:              5,
		RPGAIRateMbps:             40 * lineRateGbps / 40,
		RPGHAIRateMbps:            200 * lineRateGbps / 40,
		RPGGd:                     11,
		RPGMinRateMbps:            100,
		DCETCPG:                   1020,
		DCETCPRTTUs:               55,
		RateReduceMonitorPeriodUs: 0,
		InitialAlphaValue:         1024,
		MinTimeBetweenCNPsUs:      50,
	}
}

// Preset returns a named preset for NICs of lineRateGbps ("" is the
// default). The second result is the canonical name.
func Preset(name string, lineRateGbps float64) (DCQCN, string, error) {
	switch name {
	case "", PresetConnectX, presetMellanox:
		return ConnectX(), PresetConnectX, nil
	case PresetPaper:
		return Paper(lineRateGbps), PresetPaper, nil
	}
	return DCQCN{}, "", &FieldError{Field: "dcqcn.preset", Msg: fmt.Sprintf("unknown DCQCN preset %q", name), Fix: fmt.Sprintf("use %s (the NIC's defaults) or %s (the DCQCN paper's)", PresetConnectX, PresetPaper)}
}

// FieldError is a setting out of range. Field is its path in a nic
// section ("dcqcn.rpg_ai_rate", "qp_timeout").
type FieldError struct {
	Field, Msg, Fix string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg + " (fix: " + e.Fix + ")" }

// Validate checks the parameters' ranges and names the one to fix.
func (d DCQCN) Validate() error {
	bad := func(name string, v any, fix string) error {
		return &FieldError{Field: "dcqcn." + name, Msg: fmt.Sprintf("%v is out of range", v), Fix: fix}
	}
	rate := func(x float64) bool { return x < 0 || math.IsNaN(x) || x > 1e7 }
	switch {
	case d.RPGTimeResetUs <= 0 || d.RPGTimeResetUs > 1e7:
		return bad("rpg_time_reset", d.RPGTimeResetUs, "use 1..10000000 µs")
	case d.RPGByteReset < 0 || d.RPGByteReset > 1<<40:
		return bad("rpg_byte_reset", d.RPGByteReset, "use 0 (off) or a byte count")
	case d.RPGThreshold < 0 || d.RPGThreshold > 31:
		return bad("rpg_threshold", d.RPGThreshold, "use 0..31")
	case rate(d.RPGMaxRateMbps):
		return bad("rpg_max_rate", d.RPGMaxRateMbps, "use 0 (line rate) or a rate up to 10000000 Mb/s")
	case rate(d.RPGAIRateMbps):
		return bad("rpg_ai_rate", d.RPGAIRateMbps, "use 0 to 10000000 Mb/s (ConnectX's default is 5)")
	case rate(d.RPGHAIRateMbps):
		return bad("rpg_hai_rate", d.RPGHAIRateMbps, "use 0 to 10000000 Mb/s (ConnectX's default is 50)")
	case d.RPGGd < 1 || d.RPGGd > 15:
		return bad("rpg_gd", d.RPGGd, "use 1..15 (11 halves the rate at alpha 1)")
	case d.RPGMinDecFac < 0 || d.RPGMinDecFac > 100:
		return bad("rpg_min_dec_fac", d.RPGMinDecFac, "use 0..100 percent")
	case d.RPGMinRateMbps <= 0 || rate(d.RPGMinRateMbps):
		return bad("rpg_min_rate", d.RPGMinRateMbps, "use a positive rate up to 10000000 Mb/s, below the line rate")
	case d.RPGMaxRateMbps > 0 && d.RPGMinRateMbps > d.RPGMaxRateMbps:
		return &FieldError{Field: "dcqcn.rpg_min_rate", Msg: fmt.Sprintf("%v Mb/s is above rpg_max_rate (%v Mb/s)", d.RPGMinRateMbps, d.RPGMaxRateMbps),
			Fix: "give rpg_min_rate at most rpg_max_rate: DCQCN's rate stays between them"}
	case rate(d.RateToSetOnFirstCNPMbps):
		return bad("rate_to_set_on_first_cnp", d.RateToSetOnFirstCNPMbps, "use 0 (line rate) or a rate up to 10000000 Mb/s")
	case d.DCETCPG < 0 || d.DCETCPG > 1023:
		return bad("dce_tcp_g", d.DCETCPG, "use 0..1023 (g = (1024 - dce_tcp_g)/1024)")
	case d.DCETCPRTTUs <= 0 || d.DCETCPRTTUs > 1e7:
		return bad("dce_tcp_rtt", d.DCETCPRTTUs, "use 1..10000000 µs")
	case d.RateReduceMonitorPeriodUs < 0 || d.RateReduceMonitorPeriodUs > 1e7:
		return bad("rate_reduce_monitor_period", d.RateReduceMonitorPeriodUs, "use 0 (cut at every CNP) or a period in µs")
	case d.InitialAlphaValue < 0 || d.InitialAlphaValue > 1024:
		return bad("initial_alpha_value", d.InitialAlphaValue, "use 0..1024 (1024 = 1)")
	case d.MinTimeBetweenCNPsUs < 0 || d.MinTimeBetweenCNPsUs > 1e7:
		return bad("min_time_between_cnps", d.MinTimeBetweenCNPsUs, "use 0..10000000 µs")
	}
	return nil
}

// Param is one setting as a run records it: the NIC's name, its value
// and unit.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Unit  string `json:"unit,omitempty"`
}

// Params lists the parameters in the NIC's names, reaction point first.
func (d DCQCN) Params() []Param {
	b := func(v bool) string {
		if v {
			return "1"
		}
		return "0"
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return []Param{
		{"clamp_tgt_rate", b(d.ClampTgtRate), ""},
		{"clamp_tgt_rate_after_time_inc", b(d.ClampTgtRateAfterTimeInc), ""},
		{"rpg_time_reset", i(d.RPGTimeResetUs), "µs"},
		{"rpg_byte_reset", i(d.RPGByteReset), "bytes"},
		{"rpg_threshold", i(int64(d.RPGThreshold)), ""},
		{"rpg_max_rate", f(d.RPGMaxRateMbps), "Mb/s"},
		{"rpg_ai_rate", f(d.RPGAIRateMbps), "Mb/s"},
		{"rpg_hai_rate", f(d.RPGHAIRateMbps), "Mb/s"},
		{"rpg_gd", i(int64(d.RPGGd)), ""},
		{"rpg_min_dec_fac", i(int64(d.RPGMinDecFac)), "%"},
		{"rpg_min_rate", f(d.RPGMinRateMbps), "Mb/s"},
		{"rate_to_set_on_first_cnp", f(d.RateToSetOnFirstCNPMbps), "Mb/s"},
		{"dce_tcp_g", i(int64(d.DCETCPG)), "/1024"},
		{"dce_tcp_rtt", i(d.DCETCPRTTUs), "µs"},
		{"rate_reduce_monitor_period", i(d.RateReduceMonitorPeriodUs), "µs"},
		{"initial_alpha_value", i(int64(d.InitialAlphaValue)), "/1024"},
		{"min_time_between_cnps", i(d.MinTimeBetweenCNPsUs), "µs"},
	}
}
