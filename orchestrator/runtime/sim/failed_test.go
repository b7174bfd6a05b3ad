package sim

import (
	"testing"

	"github.com/labctl/labctl/orchestrator/results"
)

// A flow is failed when any of its QPs failed, with the first failure's
// time and the retry count that ran; a flow none of whose QPs failed has
// no state.
func TestMarkFailed(t *testing.T) {
	for _, tc := range []struct {
		failed, qps, retry int
		atNs               int64
		state, reason      string
	}{
		{0, 1, 7, 0, "", ""},
		{1, 1, 0, 3_049_134, results.FlowFailed, "retry count exceeded after 1 timeout at 3049.1 µs (retry_cnt 0)"},
		{1, 1, 7, 10_389_166, results.FlowFailed, "retry count exceeded after 8 timeouts in a row at 10389.2 µs (retry_cnt 7)"},
		{2, 7, 3, 500_000, results.FlowFailed, "2 of its 7 QPs failed, the first: retry count exceeded after 4 timeouts in a row at 500.0 µs (retry_cnt 3)"},
	} {
		var f results.Flow
		markFailed(&f, tc.failed, tc.qps, tc.atNs, tc.retry)
		if f.State != tc.state || f.Reason != tc.reason {
			t.Errorf("%d of %d QPs failed at %d ns, retry_cnt %d: state %q reason %q\nwant %q %q", tc.failed, tc.qps, tc.atNs, tc.retry, f.State, f.Reason, tc.state, tc.reason)
		}
	}
}
