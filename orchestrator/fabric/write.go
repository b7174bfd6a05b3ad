package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/labctl/labctl/orchestrator/plural"
)

// WriteLab writes the lab's generated files under dir (topologies/<lab>):
// the containerlab topology, the mermaid diagram and startup/<switch>.*.
// Each file is replaced atomically; startup configs of switches that no
// longer exist (or of the other NOS) are removed. Nothing else in dir (the
// vendor configs in configs/, state) is touched. It returns the paths
// written.
func (g *Graph) WriteLab(dir string) ([]string, error) {
	files, err := g.Files()
	if err != nil {
		return nil, err
	}
	return g.WriteFiles(dir, files)
}

// WriteFiles is WriteLab with the lab's files already generated (g.Files),
// for a caller that generated them to compare with those on disk.
func (g *Graph) WriteFiles(dir string, files []File) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, StartupDir), 0o755); err != nil {
		return nil, fmt.Errorf("write lab %s: %w", g.Name, err)
	}
	keep := map[string]bool{}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := writeAtomic(path, f.Data); err != nil {
			return written, fmt.Errorf("write lab %s: %w", g.Name, err)
		}
		keep[path] = true
		written = append(written, path)
	}
	entries, err := os.ReadDir(filepath.Join(dir, StartupDir))
	if err != nil {
		return written, fmt.Errorf("write lab %s: %w", g.Name, err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, StartupDir, e.Name())
		if e.Type().IsRegular() && !keep[path] && (strings.HasSuffix(e.Name(), ".cfg") || strings.HasSuffix(e.Name(), ".json")) {
			if err := os.Remove(path); err != nil {
				return written, fmt.Errorf("write lab %s: remove stale %s: %w", g.Name, path, err)
			}
		}
	}
	return written, nil
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return err
	}
	return os.Rename(name, path)
}

// Summary is a few lines describing the lab for the terminal.
func (g *Graph) Summary() []string {
	nics := 0
	for _, h := range g.Hosts() {
		nics += len(h.Ports)
	}
	line := fmt.Sprintf("lab %s (nos %s, %d tiers", g.Name, g.NOS, g.Tiers)
	if g.Tiers == 1 {
		line = fmt.Sprintf("lab %s (nos %s, 1 tier: one switch", g.Name, g.NOS)
	}
	if g.Pods > 1 {
		line += fmt.Sprintf(", %d pods", g.Pods)
	}
	line += "): "
	if n := len(g.NodesByRole(RoleSuperSpine)); n > 0 {
		line += plural.N(n, "super-spine") + ", "
	}
	spines := plural.N(len(g.NodesByRole(RoleSpine)), "spine") + ", "
	if g.Tiers == 1 {
		spines = ""
	}
	line += fmt.Sprintf("%s%s, %s (%d GPUs, %d NICs x %dG), %s",
		spines, plural.N(len(g.NodesByRole(RoleLeaf)), "leaf"), plural.N(len(g.Hosts()), "server"), g.GPUs, nics, g.NICSpeedGbps, plural.N(len(g.Links), "lab link"))
	est := g.Estimate()
	out := []string{line, fmt.Sprintf("containerlab estimate: %d MiB memory, %.1f CPUs", est.MemoryMiB, est.CPUs)}
	if len(g.ScaleDown) == 0 {
		out = append(out, "scale-down: none (the lab is the plan, link for link)")
	} else {
		out = append(out, "scale-down:")
		for _, s := range g.ScaleDown {
			out = append(out, "  - "+s)
		}
	}
	return out
}
