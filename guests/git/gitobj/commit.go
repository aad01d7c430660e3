package gitobj

import (
	"bytes"
	"container/heap"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Commit is a parsed commit.
type Commit struct {
	ID        ID
	Tree      ID
	Parents   []ID
	Author    string // "Name <email>"
	Committer string
	When      time.Time // committer time
	Message   string
	Raw       []byte // headers and message as stored
}

// Subject is the message's first line.
func (c *Commit) Subject() string {
	s, _, _ := strings.Cut(c.Message, "\n")
	return s
}

// Commit reads and parses the commit id.
func (r *Repo) Commit(id ID) (*Commit, error) {
	if c := r.commits[id]; c != nil {
		return c, nil
	}
	obj, err := r.Read(id)
	if err != nil {
		return nil, err
	}
	if obj.Type != TypeCommit {
		return nil, fmt.Errorf("object %s: %w: a %s, not a commit", id, ErrNotFound, obj.Type)
	}
	c, err := parseCommit(id, obj.Data)
	if err != nil {
		return nil, err
	}
	if r.commits == nil || len(r.commits) >= maxCachedCommits {
		r.commits = map[ID]*Commit{} // bounded: emptied when full
	}
	r.commits[id] = c
	return c, nil
}

// maxCachedCommits bounds the parsed commits kept (a log walk parses up
// to max_log of them; a Commit's message is bounded by max_object_bytes).
const maxCachedCommits = 1024

func parseCommit(id ID, data []byte) (*Commit, error) {
	c := &Commit{ID: id, Raw: data}
	hdr, msg, _ := bytes.Cut(data, []byte("\n\n"))
	c.Message = string(msg)
	for _, line := range bytes.Split(hdr, []byte("\n")) {
		k, v, _ := bytes.Cut(line, []byte(" "))
		switch string(k) {
		case "tree":
			c.Tree, _ = ParseID(string(v))
		case "parent":
			p, ok := ParseID(string(v))
			if !ok {
				return nil, fmt.Errorf("commit %s: %w: bad parent", id, ErrCorrupt)
			}
			if len(c.Parents) >= 1024 {
				return nil, fmt.Errorf("commit %s: %w: more than 1024 parents", id, ErrLimit)
			}
			c.Parents = append(c.Parents, p)
		case "author":
			c.Author, _ = splitSignature(string(v))
		case "committer":
			c.Committer, c.When = splitSignature(string(v))
		}
	}
	if c.Tree == (ID{}) {
		return nil, fmt.Errorf("commit %s: %w: no tree", id, ErrCorrupt)
	}
	return c, nil
}

// splitSignature splits "Name <email> 1700000000 +0100".
func splitSignature(s string) (string, time.Time) {
	end := strings.LastIndexByte(s, '>')
	if end < 0 {
		return s, time.Time{}
	}
	who := s[:end+1]
	f := strings.Fields(s[end+1:])
	if len(f) < 1 {
		return who, time.Time{}
	}
	sec, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return who, time.Time{}
	}
	t := time.Unix(sec, 0).UTC()
	if len(f) > 1 && len(f[1]) == 5 {
		h, _ := strconv.Atoi(f[1][1:3])
		m, _ := strconv.Atoi(f[1][3:5])
		off := h*3600 + m*60
		if f[1][0] == '-' {
			off = -off
		}
		t = t.In(time.FixedZone(f[1], off))
	}
	return who, t
}

// headerValue returns the value of the first header line key.
func headerValue(data []byte, key string) []byte {
	hdr, _, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range bytes.Split(hdr, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(" ")); ok && string(k) == key {
			return v
		}
	}
	return nil
}

// LogEntry is one commit of a log, or the note that history stops.
type LogEntry struct {
	Commit *Commit
	// Missing names a parent that is not in the repository (a shallow
	// clone's boundary, or a damaged one).
	Missing ID
}

// Log walks history from start, newest committer date first (git log's
// default order for a single start), at most max commits. A parent that is
// missing (a shallow clone) is reported as an entry, not an error.
func (r *Repo) Log(start ID, max int) ([]LogEntry, error) {
	seen := map[ID]bool{start: true}
	q := &commitQueue{}
	first, err := r.Commit(start)
	if err != nil {
		return nil, err
	}
	heap.Push(q, first)
	var out []LogEntry
	for q.Len() > 0 && len(out) < max {
		c := heap.Pop(q).(*Commit)
		out = append(out, LogEntry{Commit: c})
		for _, p := range c.Parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			pc, err := r.Commit(p)
			if err != nil {
				if isNotFound(err) {
					out = append(out, LogEntry{Missing: p})
					continue
				}
				return nil, err
			}
			heap.Push(q, pc)
		}
	}
	return out, nil
}

type commitQueue []*Commit

func (q commitQueue) Len() int { return len(q) }
func (q commitQueue) Less(i, j int) bool {
	if !q[i].When.Equal(q[j].When) {
		return q[i].When.After(q[j].When)
	}
	return bytes.Compare(q[i].ID[:], q[j].ID[:]) < 0
}
func (q commitQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *commitQueue) Push(x any)   { *q = append(*q, x.(*Commit)) }
func (q *commitQueue) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}
