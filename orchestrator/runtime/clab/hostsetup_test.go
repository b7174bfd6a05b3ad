package clab

import (
	"context"
	"errors"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// fakeExecer answers commands by their argv joined with spaces.
type fakeExecer struct {
	calls   [][]string
	answers map[string]ExecResult
	errs    map[string]error
}

func (f *fakeExecer) Exec(_ context.Context, _ string, argv []string, _ ExecOptions) (ExecResult, error) {
	f.calls = append(f.calls, argv)
	k := strings.Join(argv, " ")
	if err := f.errs[k]; err != nil {
		return ExecResult{}, err
	}
	return f.answers[k], nil
}

func testHost() HostNet {
	return HostNet{
		Container: "clab-16gpu-h1",
		Iface:     "eth1",
		Address:   netip.MustParsePrefix("10.1.0.1/31"),
		MTU:       4200,
		Routes:    []Route{{Dst: netip.MustParsePrefix("10.0.0.0/8"), Via: netip.MustParseAddr("10.1.0.0")}},
		RDMADev:   "rxe0",
	}
}

func TestSetupCommands(t *testing.T) {
	got, err := testHost().SetupCommands()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"ip", "link", "set", "dev", "eth1", "mtu", "4200"},
		{"ip", "addr", "replace", "10.1.0.1/31", "dev", "eth1"},
		{"ip", "link", "set", "dev", "eth1", "up"},
		{"ip", "route", "replace", "10.0.0.0/8", "via", "10.1.0.0", "dev", "eth1"},
		{"rdma", "link", "add", "rxe0", "type", "rxe", "netdev", "eth1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SetupCommands =\n%q\nwant\n%q", got, want)
	}
}

func TestHostNetValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*HostNet)
		want   string
	}{
		{"shell in iface", func(h *HostNet) { h.Iface = "eth1;reboot" }, "interface name"},
		{"no address", func(h *HostNet) { h.Address = netip.Prefix{} }, "no address"},
		{"mtu", func(h *HostNet) { h.MTU = 100000 }, "MTU"},
		{"rdma name", func(h *HostNet) { h.RDMADev = "rxe 0" }, "RDMA device name"},
		{"route", func(h *HostNet) { h.Routes = []Route{{Dst: netip.MustParsePrefix("10.0.0.0/8")}} }, "route"},
	}
	for _, tt := range tests {
		h := testHost()
		tt.mutate(&h)
		err := h.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.want)
		}
	}
}

func TestSetupSkipsExistingRXE(t *testing.T) {
	f := &fakeExecer{answers: map[string]ExecResult{
		"rdma link": {Stdout: []byte("link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth1\n")},
	}}
	if err := testHost().Setup(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.calls {
		if strings.Join(c, " ") == "rdma link add rxe0 type rxe netdev eth1" {
			t.Errorf("rxe0 was added again although it existed")
		}
	}
}

func TestSetupRXEOnWrongNetdev(t *testing.T) {
	f := &fakeExecer{answers: map[string]ExecResult{
		"rdma link": {Stdout: []byte("link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth2\n")},
	}}
	err := testHost().Setup(context.Background(), f)
	if err == nil || !strings.Contains(err.Error(), "exists on eth2") {
		t.Fatalf("error = %v", err)
	}
}

func TestSetupRXEFailureSaysWhy(t *testing.T) {
	f := &fakeExecer{answers: map[string]ExecResult{
		"rdma link add rxe0 type rxe netdev eth1": {ExitCode: 2, Stderr: []byte("error: Operation not supported")},
	}}
	err := testHost().Setup(context.Background(), f)
	if err == nil || !strings.Contains(err.Error(), "Operation not supported") || !strings.Contains(err.Error(), "rdma_rxe") {
		t.Fatalf("error = %v", err)
	}
	var ee *ExecError
	if !errors.As(err, &ee) || ee.Result.ExitCode != 2 {
		t.Fatalf("error %v does not wrap an ExecError with the exit code", err)
	}
}

func TestParseRDMALinks(t *testing.T) {
	out := "link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth1 \nlink rxe1/1 state DOWN physical_state DISABLED netdev eth2\n"
	got, err := ParseRDMALinks(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []RDMALink{{"rxe0", 1, "ACTIVE", "LINK_UP", "eth1"}, {"rxe1", 1, "DOWN", "DISABLED", "eth2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v want %+v", got, want)
	}
	for _, bad := range []string{"garbage line", "link rxe0 state ACTIVE", "link rxe0/x state"} {
		if _, err := ParseRDMALinks(bad); err == nil {
			t.Errorf("ParseRDMALinks(%q) accepted bad input", bad)
		}
	}
}

func FuzzParseRDMALinks(f *testing.F) {
	f.Add("link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth1\n")
	f.Add("link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0\nlink rxe0/1 state DOWN\n")
	f.Fuzz(func(t *testing.T, s string) {
		links, err := ParseRDMALinks(s)
		if err != nil && links != nil {
			t.Fatal("links returned with an error")
		}
	})
}

func TestVerify(t *testing.T) {
	ok := map[string]ExecResult{
		"rdma link":   {Stdout: []byte("link rxe0/1 state ACTIVE physical_state LINK_UP netdev eth1\n")},
		"ibv_devices": {Stdout: []byte("    device          \t   node GUID\n    ------          \t----------------\n    rxe0            \t505400fffe8b1c2d\n")},
		"sh -c command -v ib_write_bw && command -v ib_write_lat": {Stdout: []byte("/usr/bin/ib_write_bw\n/usr/bin/ib_write_lat\n")},
	}
	if err := testHost().Verify(context.Background(), &fakeExecer{answers: ok}); err != nil {
		t.Fatalf("Verify on a ready host: %v", err)
	}
	tests := []struct {
		name, key string
		res       ExecResult
		want      string
	}{
		{"link down", "rdma link", ExecResult{Stdout: []byte("link rxe0/1 state DOWN physical_state DISABLED netdev eth1\n")}, "is DOWN"},
		{"no link", "rdma link", ExecResult{}, "missing"},
		{"not in ibv_devices", "ibv_devices", ExecResult{Stdout: []byte("    device\n    ------\n")}, "does not list rxe0"},
		{"no perftest", "sh -c command -v ib_write_bw && command -v ib_write_lat", ExecResult{ExitCode: 1}, "perftest is not installed"},
	}
	for _, tt := range tests {
		answers := map[string]ExecResult{}
		for k, v := range ok {
			answers[k] = v
		}
		answers[tt.key] = tt.res
		err := testHost().Verify(context.Background(), &fakeExecer{answers: answers})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestParseNSpid(t *testing.T) {
	n, err := parseNSpid("Name:\tsleep\nNSpid:\t41235\t17\n")
	if err != nil || n != 17 {
		t.Fatalf("parseNSpid = %d, %v", n, err)
	}
	if _, err := parseNSpid("Name:\tsleep\n"); err == nil {
		t.Fatal("missing NSpid accepted")
	}
}
