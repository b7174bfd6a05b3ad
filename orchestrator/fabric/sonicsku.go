package fabric

import (
	"fmt"
	"strconv"
	"strings"
)

// The hardware SKU labctl's SONiC switches boot with in containerlab.
//
// docker-sonic-vs picks its SKU from the HWSKU environment variable
// (platform/vs/docker-sonic-vs/Dockerfile.j2 sets HWSKU=Force10-S6000, 32
// ports; start.sh links /usr/share/sonic/hwsku to
// /usr/share/sonic/device/$PLATFORM/$HWSKU). The image also installs
// sonic-device-data, which copies every vendor SKU of sonic-buildimage's
// device/ tree into the virtual platform x86_64-kvm_x86_64-r0 with the
// virtual switch's SAI profile and a lanemap.ini that maps eth<i> to the
// lanes of the i-th line of the SKU's port_config.ini
// (src/sonic-device-data/Makefile, "support for all hwsku in kvm switch",
// 2019). The virtual switch creates one port per lanemap line, and start.sh
// keeps the lines whose eth<i> exists in the container.
//
// containerlab's sonic-vs kind selects no SKU (nodes/sonic only runs
// supervisord after the links are wired), so labctl sets HWSKU through the
// node's env. The SKU's own CONFIG_DB cannot come from start.sh's generator:
// it reads the virtual platform's platform.json, which lists the 32
// Force10-S6000 ports, so a SKU with other lanes or breakouts gets a PORT
// table that does not match its lanes. labctl therefore hands the switch a
// complete config_db.json (its startup file, with the SKU's lanes, aliases
// and indexes) that the container copies to /etc/sonic/config_db.json
// before supervisord starts; start.sh merges it with its init_cfg.json
// instead of generating one (start.sh has done so since 2021).
//
// Mellanox-SN4700-V64 is the SN4700 (32 x 400G) with every port broken out
// into 2 x 200G: 64 ports Ethernet0..Ethernet252 in steps of 4, lanes
// 4i..4i+3, aliases etp<k>a/etp<k>b, index k (its port_config.ini in
// device/mellanox/x86_64-mlnx_msn4700-r0/, added to sonic-buildimage in
// August 2024, so in every release from 202411). That is the seed's leaf
// (32 x 400G, each port split into 2 x 200G logical ports), and its port
// names keep the Ethernet<4(n-1)> names of the default SKU.
const (
	SonicHWSKU    = "Mellanox-SN4700-V64"
	SonicPlatform = "x86_64-kvm_x86_64-r0"
	// SonicSKUPorts is the number of front-panel ports of SonicHWSKU.
	SonicSKUPorts = 64
	// sonicSKUSpeed is SonicHWSKU's port speed in port_config.ini (Mb/s).
	sonicSKUSpeed = 200000
)

// SonicConfigDBPath is where the sonic-vs container finds its startup
// config_db.json (bound read-only from startup/<switch>.json); its
// command copies it to /etc/sonic/config_db.json before SONiC starts.
const SonicConfigDBPath = "/labctl/config_db.json"

// sonicCmd is the sonic-vs kind's command. containerlab's sonic-vs kind
// makes /bin/bash the entrypoint (SONiC's processes start only once
// containerlab has wired the links), so the command is bash's arguments:
// put labctl's config_db.json where start.sh looks for one, then keep the
// interactive shell containerlab expects. A missing file stops the
// container, so a broken lab fails at deploy, not later.
const sonicCmd = `-c "mkdir -p /etc/sonic && cp ` + SonicConfigDBPath + ` /etc/sonic/config_db.json && exec /bin/bash"`

// SonicPort is one line of SonicHWSKU's port_config.ini.
type SonicPort struct {
	Name  string // Ethernet<4i>
	Lanes string // "4i,4i+1,4i+2,4i+3"
	Alias string // etp<k>a | etp<k>b
	Index int    // k, the front-panel cage (1-based)
	Speed int    // Mb/s
}

// SonicSKUPort returns the n-th port (n from 1, container interface eth<n>)
// of SonicHWSKU.
func SonicSKUPort(n int) (SonicPort, error) {
	if n < 1 || n > SonicSKUPorts {
		return SonicPort{}, fmt.Errorf("port %d: %s has ports 1..%d (eth1..eth%d)", n, SonicHWSKU, SonicSKUPorts, SonicSKUPorts)
	}
	i := n - 1
	lanes := make([]string, 4)
	for k := range lanes {
		lanes[k] = strconv.Itoa(4*i + k)
	}
	return SonicPort{
		Name:  "Ethernet" + strconv.Itoa(4*i),
		Lanes: strings.Join(lanes, ","),
		Alias: "etp" + strconv.Itoa(i/2+1) + string("ab"[i%2]),
		Index: i/2 + 1,
		Speed: sonicSKUSpeed,
	}, nil
}

// PortMapping explains, in one line per NOS kind, how the lab's container
// interfaces map to switch ports and host NICs, for `labctl topo`.
func (g *Graph) PortMapping() []string {
	var out []string
	most := 0
	for _, n := range g.Switches() {
		most = max(most, len(n.Ports))
	}
	if g.NOS == NOSSonic {
		last := PortName(KindSonicVS, max(most, 1))
		out = append(out, fmt.Sprintf("switch ports: sonic-vs with HWSKU %s (%d x %dG, set through the container's HWSKU variable; startup/<switch>.json is its CONFIG_DB at boot): eth<n> is Ethernet<4(n-1)>, eth1=Ethernet0 .. eth%d=%s on the busiest switch (%d of %d ports)",
			SonicHWSKU, SonicSKUPorts, sonicSKUSpeed/1000, max(most, 1), last, most, SonicSKUPorts))
	} else {
		out = append(out, fmt.Sprintf("switch ports: arista_ceos: eth<n> is Ethernet<n>; the busiest switch uses %d of the %d labctl allows", most, g.PortBudget.MaxDataPorts))
	}
	nics := 0
	for _, h := range g.Hosts() {
		nics = max(nics, len(h.Ports))
	}
	out = append(out, fmt.Sprintf("host NICs: one leaf port and one container interface per modelled NIC: NIC i of host<k> is eth<i+1> with soft-RoCE device rxe-host<k>-<i> (%d per host)", nics))
	return out
}
