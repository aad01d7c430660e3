package gitobj

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Change is one path that differs between two trees.
type Change struct {
	Path     string
	Old, New TreeEntry // a zero ID means absent
}

// DiffTrees lists the files that differ between trees a and b (either may
// be the zero ID: an empty tree), in path order. Like git, it descends
// only into subtrees whose ids differ, so a commit that changes one file
// of a large tree reads a handful of trees; the trees and files it visits
// count against Limits.MaxTreeEntries.
func (r *Repo) DiffTrees(a, b ID) ([]Change, error) {
	d := &treeDiff{r: r, budget: r.limits.MaxTreeEntries}
	if err := d.diff(a, b, "", 0); err != nil {
		return nil, err
	}
	sortChanges(d.out)
	return d.out, nil
}

type treeDiff struct {
	r      *Repo
	budget int
	out    []Change
}

func (d *treeDiff) spend(n int) error {
	if d.budget -= n; d.budget < 0 {
		return fmt.Errorf("diff: %w: more than %d entries: raise max_tree_entries", ErrLimit, d.r.limits.MaxTreeEntries)
	}
	return nil
}

// entries reads a tree, the zero ID being empty.
func (d *treeDiff) entries(id ID) ([]TreeEntry, error) {
	if id == (ID{}) {
		return nil, nil
	}
	ents, err := d.r.Tree(id)
	if err == nil {
		err = d.spend(1 + len(ents))
	}
	return ents, err
}

func (d *treeDiff) diff(a, b ID, dir string, depth int) error {
	if a == b {
		return nil
	}
	if depth > maxTreeDepth {
		return fmt.Errorf("diff: %w: trees nested deeper than %d", ErrLimit, maxTreeDepth)
	}
	ae, err := d.entries(a)
	if err != nil {
		return err
	}
	be, err := d.entries(b)
	if err != nil {
		return err
	}
	old := make(map[string]TreeEntry, len(ae))
	for _, e := range ae {
		old[e.Name] = e
	}
	join := func(name string) string {
		if dir == "" {
			return name
		}
		return dir + "/" + name
	}
	for _, n := range be {
		o, had := old[n.Name]
		delete(old, n.Name)
		if had && o.ID == n.ID && o.Mode == n.Mode {
			continue
		}
		var oldDir, newDir ID
		var oldFile, newFile TreeEntry
		if had && o.IsDir() {
			oldDir = o.ID
		} else if had {
			oldFile = o
		}
		if n.IsDir() {
			newDir = n.ID
		} else {
			newFile = n
		}
		if err := d.pair(join(n.Name), oldDir, newDir, oldFile, newFile, depth); err != nil {
			return err
		}
	}
	for _, o := range ae {
		if _, gone := old[o.Name]; !gone {
			continue
		}
		var oldDir ID
		var oldFile TreeEntry
		if o.IsDir() {
			oldDir = o.ID
		} else {
			oldFile = o
		}
		if err := d.pair(join(o.Name), oldDir, ID{}, oldFile, TreeEntry{}, depth); err != nil {
			return err
		}
	}
	return nil
}

// pair records what changed at path p: a file on either side, and the
// files below a directory on either side.
func (d *treeDiff) pair(p string, oldDir, newDir ID, oldFile, newFile TreeEntry, depth int) error {
	if oldFile.ID != (ID{}) || newFile.ID != (ID{}) {
		if err := d.spend(1); err != nil {
			return err
		}
		d.out = append(d.out, Change{Path: p, Old: oldFile, New: newFile})
	}
	if oldDir != (ID{}) || newDir != (ID{}) {
		return d.diff(oldDir, newDir, p, depth+1)
	}
	return nil
}

func sortChanges(c []Change) {
	sort.Slice(c, func(i, j int) bool { return c[i].Path < c[j].Path })
}

// Diff limits: a file over maxDiffLines lines, or whose edit script
// passes maxDiffEdits, is summarised instead of diffed.
const (
	maxDiffLines = 20_000
	maxDiffEdits = 1_000
	diffContext  = 3
)

// UnifiedDiff writes a unified diff (git diff's format, without rename
// detection) of the changes to w, stopping at max bytes with a note.
func (r *Repo) UnifiedDiff(changes []Change, max int) string {
	var sb strings.Builder
	for i, c := range changes {
		if sb.Len() > max {
			fmt.Fprintf(&sb, "\n[diff truncated at %d bytes: %d more files changed]\n", max, len(changes)-i)
			break
		}
		r.fileDiff(&sb, c)
	}
	return sb.String()
}

func (r *Repo) fileDiff(sb *strings.Builder, c Change) {
	fmt.Fprintf(sb, "diff --git a/%s b/%s\n", c.Path, c.Path)
	oldName, newName := "a/"+c.Path, "b/"+c.Path
	switch {
	case c.Old.ID == (ID{}):
		fmt.Fprintf(sb, "new file mode %06o\n", c.New.Mode)
		oldName = "/dev/null"
	case c.New.ID == (ID{}):
		fmt.Fprintf(sb, "deleted file mode %06o\n", c.Old.Mode)
		newName = "/dev/null"
	case c.Old.Mode != c.New.Mode:
		fmt.Fprintf(sb, "old mode %06o\nnew mode %06o\n", c.Old.Mode, c.New.Mode)
	}
	a, aerr := r.blobText(c.Old)
	b, berr := r.blobText(c.New)
	if aerr != nil || berr != nil {
		fmt.Fprintf(sb, "Binary files %s and %s differ\n", oldName, newName)
		return
	}
	al, bl := splitLines(a), splitLines(b)
	if len(al) > maxDiffLines || len(bl) > maxDiffLines {
		fmt.Fprintf(sb, "[%d and %d lines: too long to diff here]\n", len(al), len(bl))
		return
	}
	ops, ok := myers(al, bl, maxDiffEdits)
	if !ok {
		fmt.Fprintf(sb, "[more than %d lines changed: too many to diff here]\n", maxDiffEdits)
		return
	}
	if len(ops) == 0 {
		return
	}
	fmt.Fprintf(sb, "--- %s\n+++ %s\n", oldName, newName)
	writeHunks(sb, al, bl, ops)
}

// blobText returns the entry's content if it is text ("" for absent).
func (r *Repo) blobText(e TreeEntry) (string, error) {
	if e.ID == (ID{}) || e.Mode == ModeGitlink {
		return "", nil
	}
	obj, err := r.Read(e.ID)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(obj.Data[:min(len(obj.Data), 8000)], 0) >= 0 {
		return "", fmt.Errorf("binary")
	}
	return string(obj.Data), nil
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one line of an edit script: ' ' keep, '-' delete, '+' insert,
// with the line's index in a (for ' ' and '-') or b (for '+').
type op struct {
	kind byte
	a, b int
}

// myers computes a shortest edit script (Myers 1986), giving up past
// maxD edits so that a hostile pair of files costs O((N+M)·maxD) time and
// O(maxD²) memory: step d keeps only the 2d+3 diagonals it can reach.
func myers(a, b []string, maxD int) ([]op, bool) {
	n, m := len(a), len(b)
	switch {
	case n == 0 && m == 0:
		return nil, true
	case n == 0 || m == 0: // all inserts or all deletes: no search
		out := make([]op, 0, n+m)
		for i := range n {
			out = append(out, op{'-', i, 0})
		}
		for j := range m {
			out = append(out, op{'+', 0, j})
		}
		return out, true
	}
	maxD = min(maxD, n+m)
	off := maxD + 1
	v := make([]int32, 2*off+1)
	var trace [][]int32 // trace[d][k+d+1] is v[k] before step d, k in [-d-1, d+1]
	found := false
	for d := 0; d <= maxD && !found; d++ {
		trace = append(trace, append([]int32(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return nil, false
	}
	// Backtrack through the snapshots.
	var rev []op
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		tv := trace[d]
		at := func(k int) int { return int(tv[k+d+1]) }
		k := x - y
		px, py := 0, 0
		if d > 0 {
			pk := k - 1
			if k == -d || k != d && at(k-1) < at(k+1) {
				pk = k + 1
			}
			px = at(pk)
			py = px - pk
		}
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if d > 0 {
			if x == px {
				y--
				rev = append(rev, op{'+', x, y})
			} else {
				x--
				rev = append(rev, op{'-', x, y})
			}
		}
	}
	out := make([]op, 0, len(rev))
	changed := false
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
		changed = changed || rev[i].kind != ' '
	}
	if !changed {
		return nil, true
	}
	return out, true
}

// writeHunks writes the script as unified hunks with diffContext lines.
func writeHunks(sb *strings.Builder, a, b []string, ops []op) {
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i
		for end < len(ops) { // extend while changes are within 2*context
			if ops[end].kind != ' ' {
				end++
				continue
			}
			j := end
			for j < len(ops) && ops[j].kind == ' ' && j-end < 2*diffContext {
				j++
			}
			if j < len(ops) && ops[j].kind != ' ' {
				end = j
				continue
			}
			end = min(len(ops), end+diffContext)
			break
		}
		aStart, bStart, aN, bN := -1, -1, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				if aStart < 0 {
					aStart = o.a
				}
				aN++
			}
			if o.kind != '-' {
				if bStart < 0 {
					bStart = o.b
				}
				bN++
			}
		}
		sb.WriteString("@@ -" + hunkRange(aStart, aN, ops[start].a) + " +" + hunkRange(bStart, bN, ops[start].b) + " @@\n")
		for _, o := range ops[start:end] {
			var line string
			if o.kind == '+' {
				line = b[o.b]
			} else {
				line = a[o.a]
			}
			sb.WriteByte(o.kind)
			sb.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
}

func hunkRange(start, n, at int) string {
	if n == 0 {
		return strconv.Itoa(at) + ",0"
	}
	if n == 1 {
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}
