package qos

import (
	"slices"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
)

// The lab spec checks profile names itself (to report the line); its list
// must be this package's.
func TestLabKnowsEveryProfile(t *testing.T) {
	if !slices.Equal(Profiles(), lab.QoSProfiles) {
		t.Errorf("qos profiles %v, lab.QoSProfiles %v", Profiles(), lab.QoSProfiles)
	}
}
