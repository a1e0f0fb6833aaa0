package orchestrate

import (
	"os"
	"path/filepath"
	"runtime"

	"hostgate/internal/agentproto"
)

// maxSearchDepth is how many levels below base_path resolve_game_dir
// looks.
const maxSearchDepth = 3

// ResolveGameDir finds the game directory: base itself when it holds the
// controller; with search, the first directory holding it breadth-first
// up to three levels below base, each level in name order (symbolic links
// to directories are not followed). Otherwise the error has the code
// game_dir_not_found. On Linux the result has its symbolic links
// resolved, because /proc/<pid>/exe reports resolved paths.
func ResolveGameDir(base, controller string, search bool) (string, error) {
	if !filepath.IsAbs(base) {
		return "", agentproto.ArgsError("base_path must be an absolute path on this host, got %q", base)
	}
	base = filepath.Clean(base)
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return "", fail(CodeGameDirNotFound, "base_path %s is not a directory", base)
	}
	if holds(base, controller) {
		return canonical(base)
	}
	if !search {
		return "", fail(CodeGameDirNotFound, "%s does not hold %s (set resolve_game_dir to search below it)", base, controller)
	}
	level := []string{base}
	for depth := 1; depth <= maxSearchDepth; depth++ {
		var next []string
		for _, dir := range level {
			ents, _ := os.ReadDir(dir) // sorted by name; an unreadable directory is passed over
			for _, e := range ents {
				if !e.IsDir() {
					continue
				}
				sub := filepath.Join(dir, e.Name())
				if holds(sub, controller) {
					return canonical(sub)
				}
				next = append(next, sub)
			}
		}
		level = next
	}
	return "", fail(CodeGameDirNotFound, "no directory holding %s within %d levels below %s", controller, maxSearchDepth, base)
}

// holds reports whether dir has a regular file named name.
func holds(dir, name string) bool {
	st, err := os.Stat(filepath.Join(dir, name))
	return err == nil && st.Mode().IsRegular()
}

func canonical(dir string) (string, error) {
	if runtime.GOOS == "windows" {
		return dir, nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fail(agentproto.CodeFailed, "resolving %s: %v", dir, err)
	}
	return real, nil
}
