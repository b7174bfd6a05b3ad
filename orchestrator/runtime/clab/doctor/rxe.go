package doctor

import (
	"bufio"
	"errors"
	"io/fs"
	"path"
	"strings"
)

// FindRXE looks for the soft-RoCE driver on a root file system: loaded
// (/sys/module/rdma_rxe), built in (modules.builtin lists it) or a module
// file under /lib/modules/<release>/. It returns where it was found, or ""
// when it was not.
func FindRXE(root fs.FS, release string) (string, error) {
	return FindModule(root, release, "rdma_rxe")
}

// FindModule looks for kernel module name (rdma_rxe, sch_red) as FindRXE
// looks for rdma_rxe.
func FindModule(root fs.FS, release, name string) (string, error) {
	if _, err := fs.Stat(root, path.Join("sys/module", name)); err == nil {
		return "loaded", nil
	}
	mods := path.Join("lib/modules", release)
	if f, err := root.Open(path.Join(mods, "modules.builtin")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if path.Base(sc.Text()) == name+".ko" {
				f.Close()
				return "built in", nil
			}
		}
		f.Close()
	}
	found := ""
	err := fs.WalkDir(root, mods, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == mods {
				return fs.SkipAll
			}
			return nil
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), name+".ko") {
			found = "module /" + p
			return fs.SkipAll
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return found, nil
}
