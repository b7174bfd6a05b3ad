package sim

import "testing"

// RevisionChanges lists the revisions after the older side up to the
// newer, whichever side is newer; the revisions are numbered 1, 2, ...
// in order and the last is Revision.
func TestRevisionHistory(t *testing.T) {
	for i, r := range Revisions {
		if r.Revision != i+1 || r.Date == "" || r.Change == "" {
			t.Errorf("revision %d of the list: %+v", i+1, r)
		}
	}
	if last := Revisions[len(Revisions)-1]; last.Revision != Revision {
		t.Errorf("last listed revision %d, Revision %d", last.Revision, Revision)
	}
	if got := RevisionChanges(0, Revision); len(got) != Revision {
		t.Errorf("changes from 0 to %d: %d lines", Revision, len(got))
	}
	if got := RevisionChanges(Revision, 0); len(got) != Revision {
		t.Errorf("changes from %d to 0: %d lines", Revision, len(got))
	}
	if got := RevisionChanges(Revision, Revision); got != nil {
		t.Errorf("no change: %q", got)
	}
}
