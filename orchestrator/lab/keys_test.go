package lab

import (
	"reflect"
	"testing"

	"github.com/labctl/labctl/orchestrator/specdoc"
)

// Every lab spec key is documented: a key added to Spec without an entry
// in KeyDocs fails here with the entry to add.
func TestEveryKeyDocumented(t *testing.T) {
	for _, err := range specdoc.Check(reflect.TypeOf(Spec{}), KeyDocs, "lab spec", "orchestrator/lab/keys.go") {
		t.Error(err)
	}
}
