package packaging

import (
	"debug/elf"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// elfMachine is the ELF machine of each release architecture.
var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// tripletOf is Debian's multiarch directory name of each architecture.
var tripletOf = map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}

// checkLoadable says, from the files alone, whether the dynamic loader
// would start the program prog (a path inside the directory root, which is
// an image's file system) for arch, with only root's files: what ld.so
// --list checks, without running anything (an arm64 program cannot run
// here). The program and every object it loads are ELF files for arch;
// its interpreter is in root; each DT_NEEDED library, recursively, is in
// root's multiarch library directories; and every symbol an object
// imports (with its version, as GLIBC_2.34) is defined by one of them. It
// returns what is wrong, one line each; none when all is there.
func checkLoadable(root, prog, arch string) []string {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	dirs := []string{"/lib/" + tripletOf[arch], "/usr/lib/" + tripletOf[arch], "/lib", "/usr/lib"}

	type object struct {
		name string // as the image names it
		file *elf.File
	}
	var objects []object
	open := func(name string) *elf.File {
		real, err := inRoot(root, name)
		if err != nil {
			bad("%s: %v", name, err)
			return nil
		}
		f, err := elf.Open(real)
		if err != nil {
			bad("%s: %v", name, err)
			return nil
		}
		if f.Machine != elfMachine[arch] || f.Class != elf.ELFCLASS64 {
			bad("%s: %v %v, want %v ELFCLASS64", name, f.Machine, f.Class, elfMachine[arch])
		}
		objects = append(objects, object{name, f})
		return f
	}
	defer func() {
		for _, o := range objects {
			o.file.Close()
		}
	}()

	main := open(prog)
	if main == nil {
		return problems
	}
	interp := ""
	for _, p := range main.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			_, err := p.ReadAt(b, 0)
			if err != nil {
				bad("%s: its PT_INTERP: %v", prog, err)
				return problems
			}
			interp = strings.TrimRight(string(b), "\x00")
		}
	}
	if interp == "" {
		bad("%s: no interpreter (PT_INTERP): not a dynamically linked program", prog)
		return problems
	}
	if open(interp) == nil {
		return problems
	}

	// The libraries, breadth first as ld.so loads them.
	seen := map[string]bool{path.Base(interp): true}
	for i := 0; i < len(objects); i++ {
		needed, err := objects[i].file.ImportedLibraries()
		if err != nil {
			bad("%s: %v", objects[i].name, err)
			continue
		}
		for _, lib := range needed {
			if seen[lib] {
				continue
			}
			seen[lib] = true
			found := ""
			for _, d := range dirs {
				if _, err := inRoot(root, path.Join(d, lib)); err == nil {
					found = path.Join(d, lib)
					break
				}
			}
			if found == "" {
				bad("%s needs %s, which is not in %s", objects[i].name, lib, strings.Join(dirs, ", "))
				continue
			}
			open(found)
		}
	}

	if len(problems) > 0 {
		return problems // a missing object leaves its symbols undefined: no news
	}

	// The symbols each object imports, against those the others define.
	defined := map[string]bool{} // name, and name@version
	for _, o := range objects {
		syms, err := o.file.DynamicSymbols()
		if err != nil {
			continue // an object without dynamic symbols defines none
		}
		for _, s := range syms {
			if s.Section == elf.SHN_UNDEF {
				continue
			}
			defined[s.Name] = true
			if s.Version != "" {
				defined[s.Name+"@"+s.Version] = true
			}
		}
	}
	for _, o := range objects {
		imported, err := o.file.ImportedSymbols()
		if err != nil {
			continue
		}
		for _, s := range imported {
			key := s.Name
			if s.Version != "" {
				key += "@" + s.Version
			}
			if !defined[key] {
				bad("%s imports %s, which no object in the image defines", o.name, key)
			}
		}
	}
	return problems
}

// inRoot is the path on this machine of the file name inside root,
// following a symbolic link that name itself is as it resolves inside
// root (an image's absolute link names a file of the image, not of this
// machine).
func inRoot(root, name string) (string, error) {
	for hops := 0; hops < 40; hops++ {
		p := filepath.Join(root, name)
		fi, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(name), target)
		}
		name = path.Clean("/" + target)
	}
	return "", fmt.Errorf("%s: too many symbolic links", name)
}
