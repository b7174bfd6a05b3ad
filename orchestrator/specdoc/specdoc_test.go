package specdoc

import (
	"reflect"
	"strings"
	"testing"
)

type item struct {
	Kind  string `yaml:"kind"`
	Count *int   `yaml:"count,omitempty"`
}

type spec struct {
	Name    string          `yaml:"name"`
	Items   []item          `yaml:"items"`
	Inner   struct{ X int } `yaml:"inner"`
	Weights map[int]int     `yaml:"weights"`
	Tags    []string        `yaml:"tags"`
	Skipped string          `yaml:"-"`
}

var docs = Table{
	"name":          {Doc: "The name. Required."},
	"items":         {Doc: "Things."},
	"items[].kind":  {Doc: "Which kind.", Default: "a"},
	"items[].count": {Doc: "How many."},
	"inner":         {Doc: "Inner part."},
	"inner.x":       {Doc: "X."},
	"weights":       {Doc: "Weights."},
	"tags":          {Doc: "Tags."},
}

func TestKeys(t *testing.T) {
	var got []string
	for _, k := range Keys(reflect.TypeOf(spec{}), docs) {
		got = append(got, k.Path+":"+k.Type)
	}
	want := "name:string items:list of mappings items[].kind:string items[].count:integer inner:mapping inner.x:integer weights:mapping of integer to integer tags:list of strings"
	if strings.Join(got, " ") != want {
		t.Errorf("Keys = %s\nwant   %s", strings.Join(got, " "), want)
	}
}

func TestCheck(t *testing.T) {
	if errs := Check(reflect.TypeOf(spec{}), docs, "test spec", "x/keys.go"); len(errs) != 0 {
		t.Errorf("complete table: %v", errs)
	}
	partial := Table{}
	for k, v := range docs {
		partial[k] = v
	}
	delete(partial, "items[].count")
	partial["old_key"] = Entry{Doc: "gone"}
	errs := Check(reflect.TypeOf(spec{}), partial, "test spec", "x/keys.go")
	if len(errs) != 2 {
		t.Fatalf("Check = %v, want 2 problems", errs)
	}
	// The message says exactly what to add, and where.
	for _, want := range []string{`test spec key "items[].count" (integer) has no documentation: add to the table in x/keys.go`, `"items[].count": {Doc:`, "-update"} {
		if !strings.Contains(errs[0].Error(), want) {
			t.Errorf("%q does not say %q", errs[0], want)
		}
	}
	if !strings.Contains(errs[1].Error(), `"old_key", which is no test spec key`) {
		t.Errorf("stale entry: %v", errs[1])
	}
}

func TestMarkdownAndExplain(t *testing.T) {
	md := Markdown("Test spec reference", "Intro.", reflect.TypeOf(spec{}), docs, "name: a\n", "a.yaml")
	for _, want := range []string{"# Test spec reference\n\nIntro.", "| `items[].kind` | string | a | Which kind. |", "```yaml\nname: a\n```"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	text, ok := Explain(reflect.TypeOf(spec{}), docs, "items")
	if !ok || !strings.Contains(text, "KEY:     items\nTYPE:    list of mappings") || !strings.Contains(text, "  kind   string\n      Which kind.") {
		t.Errorf("Explain(items) = %v\n%s", ok, text)
	}
	for _, path := range []string{"items[].kind", "items.kind"} {
		if text, ok := Explain(reflect.TypeOf(spec{}), docs, path); !ok || !strings.Contains(text, "DEFAULT: a") {
			t.Errorf("Explain(%s) = %v\n%s", path, ok, text)
		}
	}
	if text, ok := Explain(reflect.TypeOf(spec{}), docs, ""); !ok || !strings.Contains(text, "KEYS:") || strings.Contains(text, "kind") {
		t.Errorf("Explain of the whole spec:\n%s", text)
	}
	if _, ok := Explain(reflect.TypeOf(spec{}), docs, "nope"); ok {
		t.Error("Explain(nope) found a key")
	}
}
