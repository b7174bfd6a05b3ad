package nic

import "fmt"

// Spec is the nic section of a lab spec or a scenario: a DCQCN preset and
// parameters overriding it, and the QPs' loss recovery. Nil fields keep
// what lies underneath: the preset's value, or the lab's when a scenario
// overrides a lab.
type Spec struct {
	DCQCN *DCQCNSpec `yaml:"dcqcn,omitempty" json:"dcqcn,omitempty"`
	// QPTimeout is the QP's local ACK timeout exponent: a sender that
	// hears nothing for 4.096 µs x 2^qp_timeout goes back to its first
	// unacknowledged packet (ibv_qp_attr.timeout, perftest -u; default
	// 14: 67.1 ms).
	QPTimeout *int `yaml:"qp_timeout,omitempty" json:"qp_timeout,omitempty"`
	// RetryCnt is how many times a QP retries after local ACK timeouts in
	// a row; the timeout after the last retry fails it, so 0 fails it on
	// the first (ibv_qp_attr.retry_cnt, 0-7; perftest sets 7).
	RetryCnt *int `yaml:"retry_cnt,omitempty" json:"retry_cnt,omitempty"`
	// NAKRepeatUs repeats the NAK for a gap the sender has not filled after
	// this many µs. RC QPs send one NAK per gap (IBA) and rely on the
	// local ACK timeout after that: 0, the default. HPCC's ns-3 model
	// repeats it every 500 µs; set that to compare with it.
	NAKRepeatUs *int64 `yaml:"nak_repeat_us,omitempty" json:"nak_repeat_us,omitempty"`
	// OutOfOrder makes receiving NICs place packets that arrive out of
	// order (ConnectX-5 and later, out-of-order data placement, which
	// switch adaptive routing and packet spraying need); off, the
	// default, a reordered packet is handled as a loss (go-back-N).
	OutOfOrder *bool `yaml:"out_of_order,omitempty" json:"out_of_order,omitempty"`
}

// DCQCNSpec names a preset and overrides its parameters by the NIC's
// names (see DCQCN for each one's meaning and unit).
type DCQCNSpec struct {
	// Preset is connectx (the NIC's defaults, the default) or paper.
	Preset                   string   `yaml:"preset,omitempty" json:"preset,omitempty"`
	ClampTgtRate             *bool    `yaml:"clamp_tgt_rate,omitempty" json:"clamp_tgt_rate,omitempty"`
	ClampTgtRateAfterTimeInc *bool    `yaml:"clamp_tgt_rate_after_time_inc,omitempty" json:"clamp_tgt_rate_after_time_inc,omitempty"`
	RPGTimeReset             *int64   `yaml:"rpg_time_reset,omitempty" json:"rpg_time_reset,omitempty"`
	RPGByteReset             *int64   `yaml:"rpg_byte_reset,omitempty" json:"rpg_byte_reset,omitempty"`
	RPGThreshold             *int     `yaml:"rpg_threshold,omitempty" json:"rpg_threshold,omitempty"`
	RPGMaxRate               *float64 `yaml:"rpg_max_rate,omitempty" json:"rpg_max_rate,omitempty"`
	RPGAIRate                *float64 `yaml:"rpg_ai_rate,omitempty" json:"rpg_ai_rate,omitempty"`
	RPGHAIRate               *float64 `yaml:"rpg_hai_rate,omitempty" json:"rpg_hai_rate,omitempty"`
	RPGGd                    *int     `yaml:"rpg_gd,omitempty" json:"rpg_gd,omitempty"`
	RPGMinDecFac             *int     `yaml:"rpg_min_dec_fac,omitempty" json:"rpg_min_dec_fac,omitempty"`
	RPGMinRate               *float64 `yaml:"rpg_min_rate,omitempty" json:"rpg_min_rate,omitempty"`
	RateToSetOnFirstCNP      *float64 `yaml:"rate_to_set_on_first_cnp,omitempty" json:"rate_to_set_on_first_cnp,omitempty"`
	DCETCPG                  *int     `yaml:"dce_tcp_g,omitempty" json:"dce_tcp_g,omitempty"`
	DCETCPRTT                *int64   `yaml:"dce_tcp_rtt,omitempty" json:"dce_tcp_rtt,omitempty"`
	RateReduceMonitorPeriod  *int64   `yaml:"rate_reduce_monitor_period,omitempty" json:"rate_reduce_monitor_period,omitempty"`
	InitialAlphaValue        *int     `yaml:"initial_alpha_value,omitempty" json:"initial_alpha_value,omitempty"`
	MinTimeBetweenCNPs       *int64   `yaml:"min_time_between_cnps,omitempty" json:"min_time_between_cnps,omitempty"`
	// CNPDSCP is the DSCP of the CNPs the NIC sends (cnp_dscp); the
	// default is the lab's qos.cnp_dscp, so switches classify them.
	CNPDSCP *int `yaml:"cnp_dscp,omitempty" json:"cnp_dscp,omitempty"`
	// CNP802pPrio is the CNPs' 802.1p priority (cnp_802p_prio, default 6).
	// labctl's switches trust DSCP, so it is recorded, not simulated.
	CNP802pPrio *int `yaml:"cnp_802p_prio,omitempty" json:"cnp_802p_prio,omitempty"`
	// CNPModeration is what min_time_between_cnps paces: per_flow (each
	// flow's CNPs, as the DCQCN paper and HPCC's ns-3 do) or per_port
	// (every CNP the port sends; ConnectX's ROCE_CC_CNP_MODERATION, whose
	// NV description reads "between sending CNPs from the port").
	CNPModeration *string `yaml:"cnp_moderation,omitempty" json:"cnp_moderation,omitempty"`
}

// Settings are a lab's NIC settings once the lab's and a scenario's nic
// sections are applied to the preset.
type Settings struct {
	// Preset is the canonical preset name the parameters start from.
	Preset      string `json:"preset"`
	DCQCN       DCQCN  `json:"-"`
	CNPDSCP     int    `json:"cnp_dscp"`
	CNP802pPrio int    `json:"cnp_802p_prio"`
	// CNPModeration is per_flow or per_port (see DCQCNSpec).
	CNPModeration string `json:"cnp_moderation"`
	QPTimeout     int    `json:"qp_timeout"`
	RetryCnt      int    `json:"retry_cnt"`
	NAKRepeatUs   int64  `json:"nak_repeat_us,omitempty"`
	OutOfOrder    bool   `json:"out_of_order,omitempty"`
}

// CNP moderation values.
const (
	CNPPerFlow = "per_flow"
	CNPPerPort = "per_port"
)

// Default QP transport settings: perftest's (perftest_parameters.h
// DEF_QP_TIME 14, DEF_RETRY_COUNT 7).
const (
	DefaultQPTimeout   = 14
	DefaultRetryCnt    = 7
	DefaultCNP802pPrio = 6
)

// Resolve applies specs in order (a lab's, then a scenario's) to the
// preset the last of them names (the default when none does), for NICs
// of lineRateGbps whose CNPs default to cnpDSCP. Errors name the field.
func Resolve(lineRateGbps float64, cnpDSCP int, specs ...*Spec) (Settings, error) {
	preset := ""
	for _, s := range specs {
		if s != nil && s.DCQCN != nil && s.DCQCN.Preset != "" {
			preset = s.DCQCN.Preset
		}
	}
	d, name, err := Preset(preset, lineRateGbps)
	if err != nil {
		return Settings{}, err
	}
	st := Settings{Preset: name, DCQCN: d, CNPDSCP: cnpDSCP, CNP802pPrio: DefaultCNP802pPrio, CNPModeration: CNPPerFlow, QPTimeout: DefaultQPTimeout, RetryCnt: DefaultRetryCnt}
	for _, s := range specs {
		if s == nil {
			continue
		}
		set(&st.QPTimeout, s.QPTimeout)
		set(&st.RetryCnt, s.RetryCnt)
		set(&st.NAKRepeatUs, s.NAKRepeatUs)
		set(&st.OutOfOrder, s.OutOfOrder)
		if c := s.DCQCN; c != nil {
			c.apply(&st.DCQCN)
			set(&st.CNPDSCP, c.CNPDSCP)
			set(&st.CNP802pPrio, c.CNP802pPrio)
			set(&st.CNPModeration, c.CNPModeration)
		}
	}
	if err := st.Validate(); err != nil {
		return st, err
	}
	// DCQCN cuts the rate no lower than rpg_min_rate: at or above the line
	// rate it never cuts, and a run would show congestion control that is
	// on but does nothing.
	if m := st.DCQCN.RPGMinRateMbps; lineRateGbps > 0 && m >= lineRateGbps*1000 {
		return st, &FieldError{Field: "dcqcn.rpg_min_rate", Msg: fmt.Sprintf("%v Mb/s is not below the NIC's line rate (%v Gb/s), so DCQCN could never cut the rate", m, lineRateGbps),
			Fix: "use a rate below the line rate (ConnectX's default is 1 Mb/s), or turn DCQCN off with ecn: off"}
	}
	return st, nil
}

// Validate checks the settings' ranges.
func (st Settings) Validate() error {
	if err := st.DCQCN.Validate(); err != nil {
		return err
	}
	bad := func(field string, v int, fix string) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf("%d is out of range", v), Fix: fix}
	}
	switch {
	case st.QPTimeout < 1 || st.QPTimeout > 31:
		return bad("qp_timeout", st.QPTimeout, "use 1..31 (4.096 µs x 2^qp_timeout; perftest uses 14)")
	case st.RetryCnt < 0 || st.RetryCnt > 7:
		return bad("retry_cnt", st.RetryCnt, "use 0..7 retries (0: the first timeout fails the QP; perftest uses 7)")
	case st.NAKRepeatUs < 0 || st.NAKRepeatUs > 1e7:
		return &FieldError{Field: "nak_repeat_us", Msg: fmt.Sprintf("%d is out of range", st.NAKRepeatUs), Fix: "use 0 (one NAK per gap, as RC QPs do) or a repeat interval in µs, e.g. 500 as HPCC's ns-3"}
	case st.CNPDSCP < 0 || st.CNPDSCP > 63:
		return bad("dcqcn.cnp_dscp", st.CNPDSCP, "use a DSCP 0..63, the lab's qos.cnp_dscp")
	case st.CNP802pPrio < 0 || st.CNP802pPrio > 7:
		return bad("dcqcn.cnp_802p_prio", st.CNP802pPrio, "use a priority 0..7")
	case st.CNPModeration != CNPPerFlow && st.CNPModeration != CNPPerPort:
		return &FieldError{Field: "dcqcn.cnp_moderation", Msg: fmt.Sprintf("%q is not a CNP moderation", st.CNPModeration), Fix: "use per_flow or per_port"}
	}
	return nil
}

// Params lists every setting in the NIC's names: the DCQCN parameters,
// the CNP marking and the QP's loss recovery.
func (st Settings) Params() []Param {
	out := st.DCQCN.Params()
	return append(out,
		Param{"cnp_dscp", fmt.Sprint(st.CNPDSCP), ""},
		Param{"cnp_802p_prio", fmt.Sprint(st.CNP802pPrio), ""},
		Param{"cnp_moderation", st.CNPModeration, "(what min_time_between_cnps paces)"},
		Param{"qp_timeout", fmt.Sprint(st.QPTimeout), fmt.Sprintf("4.096 µs x 2^%d = %.1f ms", st.QPTimeout, 4.096e-3*float64(int64(1)<<st.QPTimeout))},
		Param{"retry_cnt", fmt.Sprint(st.RetryCnt), ""},
		Param{"nak_repeat", fmt.Sprint(st.NAKRepeatUs), "µs (0: one NAK per gap)"},
		Param{"out_of_order", fmt.Sprint(st.OutOfOrder), "(false: a reordered packet is handled as a loss)"},
	)
}

func (c *DCQCNSpec) apply(d *DCQCN) {
	set(&d.ClampTgtRate, c.ClampTgtRate)
	set(&d.ClampTgtRateAfterTimeInc, c.ClampTgtRateAfterTimeInc)
	set(&d.RPGTimeResetUs, c.RPGTimeReset)
	set(&d.RPGByteReset, c.RPGByteReset)
	set(&d.RPGThreshold, c.RPGThreshold)
	set(&d.RPGMaxRateMbps, c.RPGMaxRate)
	set(&d.RPGAIRateMbps, c.RPGAIRate)
	set(&d.RPGHAIRateMbps, c.RPGHAIRate)
	set(&d.RPGGd, c.RPGGd)
	set(&d.RPGMinDecFac, c.RPGMinDecFac)
	set(&d.RPGMinRateMbps, c.RPGMinRate)
	set(&d.RateToSetOnFirstCNPMbps, c.RateToSetOnFirstCNP)
	set(&d.DCETCPG, c.DCETCPG)
	set(&d.DCETCPRTTUs, c.DCETCPRTT)
	set(&d.RateReduceMonitorPeriodUs, c.RateReduceMonitorPeriod)
	set(&d.InitialAlphaValue, c.InitialAlphaValue)
	set(&d.MinTimeBetweenCNPsUs, c.MinTimeBetweenCNPs)
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
