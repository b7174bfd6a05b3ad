package runtime

import (
	"reflect"
	"testing"

	"github.com/labctl/labctl/orchestrator/lab"
)

// ConfigsKey changes with everything applyVariantSpec reads (every QoS
// field but the NICs' MTU, ECN and PFC) and with nothing else, so that
// variants sharing a key run the same configs: a QoS field added later
// changes the key by itself (the reflection below sets each one).
func TestConfigsKey(t *testing.T) {
	base := VariantSpec{Name: "ecn=on,pfc=on", ECN: true, PFC: true}
	key := base.ConfigsKey()
	other := base
	other.Name, other.Seed, other.DurationUs, other.Flows = "other", 7, 5000, []FlowSpec{{}}
	if other.ConfigsKey() != key {
		t.Error("name, seed, duration or flows changed the configs key")
	}
	for _, change := range []func(*VariantSpec){
		func(v *VariantSpec) { v.ECN = false },
		func(v *VariantSpec) { v.PFC = false },
	} {
		v := base
		change(&v)
		if v.ConfigsKey() == key {
			t.Error("ECN or PFC off left the configs key as it was")
		}
	}
	qt := reflect.TypeOf(lab.QoSSpec{})
	for i := range qt.NumField() {
		f := qt.Field(i)
		v := base
		fv := reflect.ValueOf(&v.QoS).Elem().Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString("x")
		case reflect.Slice:
			fv.Set(reflect.MakeSlice(f.Type, 1, 1))
		case reflect.Map:
			m := reflect.MakeMap(f.Type)
			m.SetMapIndex(reflect.Zero(f.Type.Key()), reflect.Zero(f.Type.Elem()))
			fv.Set(m)
		case reflect.Pointer:
			fv.Set(reflect.New(f.Type.Elem()))
		default:
			t.Fatalf("QoSSpec.%s: kind %s not covered by this test", f.Name, fv.Kind())
		}
		changed := v.ConfigsKey() != key
		if f.Name == "MTU" && changed {
			t.Error("the MTU, the NICs' and no switch's, changed the configs key")
		}
		if f.Name != "MTU" && !changed {
			t.Errorf("QoSSpec.%s set left the configs key as it was", f.Name)
		}
	}
}
