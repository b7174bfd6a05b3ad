package sonic

import (
	"fmt"
	"testing"
)

// The resolver (profileRefused) and ValidateDoc refuse the same
// packet_discard_action values: bufferorch's processBufferProfile takes
// drop and trim and fails the profile on any other, "" included.
func TestPacketDiscardActionOneRule(t *testing.T) {
	for _, field := range []string{``, `, "packet_discard_action": ""`, `, "packet_discard_action": "drop"`, `, "packet_discard_action": "trim"`, `, "packet_discard_action": "Drop"`} {
		in := fmt.Sprintf(`{"BUFFER_POOL": {"p": {"size": "1000000", "type": "ingress", "mode": "dynamic"}},
			"BUFFER_PROFILE": {"x": {"pool": "p", "size": "0", "dynamic_th": "0"%s}}}`, field)
		db, _, _, err := decodeDB(mustDoc(t, in))
		if err != nil {
			t.Fatalf("%s: %v", field, err)
		}
		refused := profileRefused(db.BufferProfile["x"]) != ""
		invalid := len(ValidateDoc(mustDoc(t, in))) > 0
		if refused != invalid {
			t.Errorf("packet_discard_action%s: the resolver refuses %v, ValidateDoc %v", field, refused, invalid)
		}
	}
}
