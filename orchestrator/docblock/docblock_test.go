package docblock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	page := "# Page\n\n<!-- generated:a -->\nold a\n<!-- end generated:a -->\n\ntext\n\n<!-- generated:b -->\n\nb\n\n<!-- end generated:b -->\n"
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{"a": "new a\nline 2\n", "b": "b"}
	stale, err := Sync(path, blocks, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) != 1 || stale[0].Name != "a" || stale[0].Line != 3 {
		t.Fatalf("stale = %+v, want block a at line 3 only", stale)
	}
	if _, err := Sync(path, blocks, true); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# Page\n\n<!-- generated:a -->\n\nnew a\nline 2\n\n<!-- end generated:a -->\n\ntext\n\n<!-- generated:b -->\n\nb\n\n<!-- end generated:b -->\n"
	if string(got) != want {
		t.Fatalf("rewritten page:\n%s\nwant:\n%s", got, want)
	}
	if stale, err := Sync(path, blocks, false); err != nil || len(stale) != 0 {
		t.Fatalf("after the rewrite: stale %+v, err %v", stale, err)
	}
}

func TestSyncErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.md")
	for _, tc := range []struct{ page, want string }{
		{"nothing\n", "no block \"a\": add the lines <!-- generated:a -->"},
		{"<!-- generated:a -->\nx\n", "page.md:1: block \"a\" is not closed"},
		{"<!-- generated:a -->\n<!-- end generated:a -->\n<!-- generated:a -->\n", "opens twice"},
	} {
		if err := os.WriteFile(path, []byte(tc.page), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Sync(path, map[string]string{"a": "x"}, true)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("page %q: error %v, want it to contain %q", tc.page, err, tc.want)
		}
	}
}
