package sonic

import (
	"fmt"
	"slices"

	"github.com/labctl/labctl/orchestrator/qos"
)

// SONiC's buffer manager in the traditional (static) buffer model, which
// labctl assumes unless DEVICE_METADATA|localhost says buffer_model
// dynamic: buffermgrd's doSpeedUpdateTask (cfgmgr/buffermgr.cpp)
// runs for a port once it knows its speed (PORT), its cable length
// (CABLE_LENGTH) and its pfc_enable (PORT_QOS_MAP), and for each run of
// consecutive PFC priorities ("3-4" of pfc_enable "3,4", by
// generateIdListFromMap) writes BUFFER_PG|<port>|<run> with the profile
// pg_lossless_<speed>_<cable>_profile: the CONFIG_DB one of that name when
// there is one ("Reusing existing profile"), else one it creates from the
// SKU's pg_profile_lookup.ini. An entry the config has on that key keeps
// its profile only when it is that one; any other is overwritten
// (m_cfgBufferPgTable.set). A cable of 0m stops it: it writes nothing for
// the port. labctl knows neither the SKU's lookup file (it assumes a row
// for the port's speed and cable; without one buffermgrd writes nothing)
// nor the platform (on Mellanox and Barefoot switches buffermgrd writes
// nothing for a port that is admin down).

// managerLossless are the priorities whose PGs buffermgrd makes lossless
// on a port: pfc_enable of the PORT_QOS_MAP entry keyed by the port's name
// (doPortQosTableTask takes the whole key for one port, so an entry
// listing ports gives none), whether or not orchagent applies the entry,
// as the resolver read it for orchagent (readPriorityLists: one reading,
// refused in every entry when malformed). nil when they are the port's
// PFC priorities (qos.PortConfig's ManagerLossless).
func (r *resolver) managerLossless(pc *qos.PortConfig) []int {
	own := []int{}
	if lists, ok := r.pqmPriorities[pc.Name]; ok {
		own = slices.Clone(lists.pfc)
	}
	if slices.Equal(own, pc.PFCPriorities) {
		return nil
	}
	return own
}

// managedPG is what buffermgrd writes for one PG of a port.
type managedPG struct {
	// key is the BUFFER_PG key it writes covering the PG
	// ("Ethernet0|3-4"), "" when it writes none.
	key string
	// profile is the profile's name, "" when labctl does not know the
	// port's speed or cable.
	profile string
}

// managerPG is what buffermgrd writes for PG g of a port.
//
// In the dynamic buffer model (DEVICE_METADATA buffer_model dynamic) the
// buffer manager (buffermgrd -a, buffermgrdyn.cpp) writes no such entry:
// lossless PGs are the config's own BUFFER_PG entries.
func (r *resolver) managerPG(pc *qos.PortConfig, g int) managedPG {
	if r.dynamic {
		return managedPG{}
	}
	if !pc.GeneratedLossless(g) || r.zeroCable(pc.Name) || r.cableOffLookup(pc) {
		return managedPG{}
	}
	prios := pc.PFCPriorities
	if pc.ManagerLossless != nil {
		prios = pc.ManagerLossless
	}
	var m managedPG
	for _, run := range cfgRuns(prios) {
		if run[0] <= g && g <= run[1] {
			m.key = pc.Name + "|" + cfgRange(run)
		}
	}
	if pc.SpeedGbps > 0 && pc.CableM > 0 {
		m.profile = qos.LosslessPGProfileName(pc.SpeedGbps, pc.CableM)
	}
	return m
}

// zeroCable says whether the config gives the port a cable of 0 m, for
// which buffermgrd writes no PG ("Not creating/updating PG profile").
// Without a length in the files read, labctl assumes the switch's own
// config gives one (its buffer template writes CABLE_LENGTH).
func (r *resolver) zeroCable(port string) bool {
	m, given, _ := r.cable(port)
	return given && m == 0
}

// cableOffLookup says whether the port's CABLE_LENGTH is written otherwise
// than pg_profile_lookup.ini writes lengths ("5m": buffermgrd looks the
// speed and the cable up as strings, so "05m" or "5.0m" has no row), in
// which case buffermgrd writes no PG for the port (task_invalid_entry),
// and notes it once per entry. labctl assumes the SKU's file has a row
// for every length written plainly (the files read do not hold it).
func (r *resolver) cableOffLookup(pc *qos.PortConfig) bool {
	c, err := r.cableEntry(pc.Name)
	plain := fmt.Sprintf("%dm", c.m)
	if err != nil || !c.given || c.text == plain {
		return false
	}
	r.overrule("CABLE_LENGTH", c.entry, false,
		fmt.Sprintf("the cable %q is not written as the SKU's pg_profile_lookup.ini writes lengths (%s): SONiC's buffer manager looks it up as text, finds no row and writes no lossless PG for the port (doSpeedUpdateTask: task_invalid_entry); the port's PGs are what BUFFER_PG itself gives", c.text, plain),
		fmt.Sprintf("write the length as %q", plain), []string{pc.Name})
	return true
}

// managedPGConfig is PG g as buffermgrd leaves it: with the profile of
// its name the config defines, or, when it defines none (or labctl does
// not know the name), the one it computes (computedPG).
func (r *resolver) managedPGConfig(pc *qos.PortConfig, g int, m managedPG, origin string) (qos.PGConfig, error) {
	if pe, ok := r.db.BufferProfile[m.profile]; ok && m.profile != "" {
		// buffermgrd reuses the config's profile of the name, which
		// bufferorch may not create, or refuse on a PG.
		return r.definedPG(pc, g, m.key, m.profile, pe, origin)
	}
	return r.computedPG(pc, g, origin), nil
}

// overwritten notes an entry buffermgrd writes over (key is its key, prof
// the profile it gives), saying what the switch uses instead.
func (r *resolver) overwritten(pc *qos.PortConfig, key, prof string, m managedPG) {
	speed, cable := "<speed>", "<cable>"
	if pc.SpeedGbps > 0 {
		speed = fmt.Sprint(pc.SpeedGbps * 1000)
	}
	if pc.CableM > 0 {
		cable = fmt.Sprintf("%dm", pc.CableM)
	}
	uses := fmt.Sprintf("the lossless profile buffermgrd makes for the port's speed and cable, pg_lossless_%s_%s_profile (the files read do not give the port's speed and cable, so labctl takes the PG as lossless with a headroom it cannot check; a lab's lint and run use the profile labctl renders)", speed, cable)
	switch _, defined := r.db.BufferProfile[m.profile]; {
	case m.profile != "" && defined:
		uses = m.profile + ", as the config defines it"
	case m.profile != "":
		uses = m.profile + ", which buffermgrd creates from the SKU's pg_profile_lookup.ini (labctl assumes the lossless profile it renders for the port's speed and that cable)"
	}
	what := fmt.Sprintf("SONiC's buffer manager writes this key itself for the port's PFC priorities (buffermgrd's doSpeedUpdateTask, traditional buffer model) and overwrites the profile %s: the switch uses %s", prof, uses)
	fix := "remove the entry, which the switch does not keep; to change the lossless PGs' buffer, change the pg_lossless_<speed>_<cable>_profile BUFFER_PROFILE itself, which buffermgrd reuses"
	r.overrule("BUFFER_PG", key, false, what, fix, []string{pc.Name})
}
