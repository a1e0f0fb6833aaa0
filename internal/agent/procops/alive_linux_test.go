package procops

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	st, err := readStat(pid)
	return err == nil && !isDead(st.State)
}
