package fabric

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/labctl/labctl/orchestrator/exitcode"
	"github.com/labctl/labctl/orchestrator/naming"
)

// containerlab kinds used by labctl. The schema rejects "ceos": the EOS kind
// is arista_ceos.
const (
	KindSonicVS = "sonic-vs"
	KindCEOS    = "arista_ceos"
	KindLinux   = "linux"
)

// ClabKind is the containerlab kind of a NOS's switches, which names their
// ports (PortName).
func ClabKind(nos string) string {
	if nos == NOSEOS {
		return KindCEOS
	}
	return KindSonicVS
}

// PortName maps the container interface eth<n> (n from 1) of a node of a
// containerlab kind to the name its NOS uses: SONiC front-panel ports are
// Ethernet0, Ethernet4, ... (4 lanes per port on labctl's SKU
// SonicHWSKU, as on the image's default Force10-S6000), EOS ports
// Ethernet1, Ethernet2, ..., and Linux hosts keep eth<n>. The NOS packages keep their own tables; this one is what the
// fabric graph, its configs and reports use.
func PortName(kind string, n int) string {
	switch kind {
	case KindSonicVS:
		return "Ethernet" + strconv.Itoa(4*(n-1))
	case KindCEOS:
		return "Ethernet" + strconv.Itoa(n)
	default:
		return "eth" + strconv.Itoa(n)
	}
}

// FrontPanelNumber reads name as a front-panel port of a switch of a
// containerlab kind, PortName's inverse: its n (from 1) and true, or false
// when name is no such port's name. SONiC's Ethernet6 (not a multiple of
// 4), Ethernet08 (not as SONiC writes 8) and EOS's Ethernet1/1 (a
// breakout name, which cEOS never creates) are names of no port here.
func FrontPanelNumber(kind, name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "Ethernet")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 {
		return 0, false
	}
	n := i
	if kind == KindSonicVS {
		n = i/4 + 1
	}
	if n < 1 || PortName(kind, n) != name {
		return 0, false
	}
	return n, true
}

// FrontPanelPorts is how many front-panel ports switch n has as its NOS
// image boots it in a lab: the port budget's (a sonic-vs with labctl's
// SKU has its 64, a cEOS the 128 labctl allows), or more where the lab
// wires a larger switch's ports (a simulated lab is not held to the
// budget).
func (g *Graph) FrontPanelPorts(n *Node) int {
	most := g.PortBudget.MaxDataPorts
	for _, p := range n.Ports {
		if k, ok := FrontPanelNumber(n.Kind, p.Name); ok {
			most = max(most, k)
		}
	}
	return most
}

// Budget is how many data interfaces one switch container of a NOS can use
// in a containerlab lab, and where that number comes from.
type Budget struct {
	NOS          string `json:"nos"`
	Kind         string `json:"kind"`
	MaxDataPorts int    `json:"max_data_ports"`
	Source       string `json:"source"`
}

// PortBudget returns the container port budget of a NOS.
func PortBudget(nos string) (Budget, error) {
	switch nos {
	case NOSSonic:
		// docker-sonic-vs boots Force10-S6000 (32 ports) unless HWSKU
		// names another SKU; labctl's topologies select SonicHWSKU, 64
		// ports (see sonicsku.go for how and why).
		return Budget{NOS: nos, Kind: KindSonicVS, MaxDataPorts: SonicSKUPorts,
			Source: fmt.Sprintf("docker-sonic-vs with HWSKU %s: %d ports Ethernet0..Ethernet%d", SonicHWSKU, SonicSKUPorts, 4*(SonicSKUPorts-1))}, nil
	case NOSEOS:
		// cEOS-lab creates one EthernetN per ethN it finds at boot; no
		// documented maximum was found (containerlab's cEOS page lists none).
		// 128 is labctl's own cap, the size of the largest fixed switches.
		return Budget{NOS: nos, Kind: KindCEOS, MaxDataPorts: 128,
			Source: "cEOS-lab maps every ethN to EthernetN with no documented limit; labctl caps at 128"}, nil
	default:
		return Budget{}, fmt.Errorf("nos %q is not supported: use sonic or eos", nos)
	}
}

// maxNodeName is the longest lab or node name the fabric takes.
const maxNodeName = 64

// ValidName checks a lab or node name that will reach file paths and
// container names: naming's rule, at most maxNodeName bytes.
func ValidName(s string) error {
	if !naming.Valid(s, maxNodeName) {
		return fmt.Errorf("%q is not a valid name: use %s", s, naming.Rule(maxNodeName))
	}
	return nil
}

// Resources is an estimate of what a containerlab lab needs.
type Resources struct {
	MemoryMiB int     `json:"memory_mib"`
	CPUs      float64 `json:"cpus"`
}

// Per-container estimates. cEOS: users measure ~1.7 GB per node (1.6-2.0 GB,
// netlab discussion #3844 "Lab Memory usage!"). docker-sonic-vs runs redis,
// orchagent, syncd-vs and FRR in one container: ~1 GiB is an estimate, not a
// measurement. A Linux host with iproute2, rdma-core and perftest idles in a
// few MiB; 64 MiB leaves room for perftest buffers (estimate).
func kindResources(kind string) Resources {
	switch kind {
	case KindCEOS:
		return Resources{MemoryMiB: 1740, CPUs: 1}
	case KindSonicVS:
		return Resources{MemoryMiB: 1024, CPUs: 0.5}
	default:
		return Resources{MemoryMiB: 64, CPUs: 0.1}
	}
}

// Estimate returns the memory and CPU a containerlab run of g needs
// (an estimate; see kindResources for sources).
func (g *Graph) Estimate() Resources {
	var r Resources
	for _, n := range g.Nodes {
		k := kindResources(n.Kind)
		r.MemoryMiB += k.MemoryMiB
		r.CPUs += k.CPUs
	}
	return r
}

// CheckCapacity compares an estimate with what the machine has. Memory
// refuses a lab: containers beyond the machine's memory get killed (the
// kernel's OOM killer picks one, and a switch dies half-booted). CPU only
// warns: containers share the CPUs, so an oversubscribed lab boots slower
// and moves less soft-RoCE traffic, but runs. force turns the memory
// refusal into a warning too. The error is an environment error (exit 3)
// naming the estimate, what the machine has, and the way out.
func CheckCapacity(est Resources, availMemMiB, cpus int, force bool) (warnings []string, err error) {
	if est.CPUs > float64(cpus) {
		warnings = append(warnings, fmt.Sprintf("this containerlab lab needs an estimated %.1f CPUs and the machine has %d: the containers share them, so nodes boot slower and traffic is slower than on a bigger machine", est.CPUs, cpus))
	}
	if est.MemoryMiB <= availMemMiB {
		return warnings, nil
	}
	if force {
		return append(warnings, fmt.Sprintf("this containerlab lab needs an estimated %d MiB of memory and the machine has %d MiB available; starting it anyway (--force): containers may be killed when memory runs out", est.MemoryMiB, availMemMiB)), nil
	}
	return warnings, exitcode.Envf("this containerlab lab needs an estimated %d MiB of memory (the machine has %d MiB available): use --runtime sim (the embedded simulator needs no containers), a smaller lab, or a bigger machine; --force starts it anyway",
		est.MemoryMiB, availMemMiB)
}

// CheckLabBudget returns a usage error when a switch exceeds its container
// port budget even after merging; `up --runtime clab` calls it.
func (g *Graph) CheckLabBudget() error {
	if len(g.OverBudget) == 0 {
		return nil
	}
	return exitcode.Usagef("lab %s cannot run in containerlab with nos %s: %s", g.Name, g.NOS, g.ScaleDown[len(g.ScaleDown)-1])
}

// MemAvailableMiB reads MemAvailable from /proc/meminfo.
func MemAvailableMiB() (int, error) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, exitcode.Envf("read available memory: %v (labctl needs /proc/meminfo on Linux)", err)
	}
	defer f.Close()
	return ParseMemAvailable(f)
}

// ParseMemAvailable returns MemAvailable in MiB from /proc/meminfo text.
func ParseMemAvailable(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemAvailable" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, fmt.Errorf("meminfo line %d: MemAvailable has no value", line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("meminfo line %d: MemAvailable value %q is not a number of kB", line, f[0])
		}
		if len(f) > 1 && f[1] != "kB" {
			return 0, fmt.Errorf("meminfo line %d: MemAvailable unit %q, expected kB", line, f[1])
		}
		return int(kb / 1024), nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read meminfo: %w", err)
	}
	return 0, fmt.Errorf("meminfo has no MemAvailable line (kernel older than 3.14?)")
}
