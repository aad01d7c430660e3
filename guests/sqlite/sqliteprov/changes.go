package sqliteprov

import (
	"context"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// snapshot is what Changes compares: a hash of each URI's content, by URI,
// and the cursor that names it.
type snapshot struct {
	cursor string
	sums   map[string]uint64
}

// keepSnapshots is how many recent snapshots an instance remembers; a
// cursor it does not remember (another instance's) is compared by its
// hashes alone.
const keepSnapshots = 4

// Changes reports which resources changed since the cursor: a table's DDL
// and description when its statement (or, for the description, one of its
// indexes or triggers) changed, a database's summary when its schema or
// settings did, and listChanged when objects or databases came or went.
// The cursor is "s1." + a hash of every content + "." + a hash of the set
// of URIs, so any instance can tell whether something changed; the
// instance that made the cursor can also tell what.
func (p *provider) Changes(ctx context.Context, req abi.ChangesRequest) (*abi.ChangesResult, error) {
	dbs, err := p.databases(ctx)
	if err != nil {
		return nil, err
	}
	sums := map[string]uint64{}
	for _, db := range dbs {
		st, err := p.state(db)
		if err != nil {
			// Its resources leave the list (as List leaves them out), and
			// the other databases keep being watched.
			mcpw.Logf(ctx, mcpw.LevelWarn, "changes: %v", err)
			continue
		}
		st.contentSums(db.name, sums)
	}
	cur := snapshotOf(sums)
	res := &abi.ChangesResult{Cursor: cur.cursor}
	if req.Cursor == "" || req.Cursor == cur.cursor {
		p.remember(cur)
		return res, nil
	}
	old := p.recall(req.Cursor)
	p.remember(cur)
	var updated []string
	if old != nil {
		for u, s := range cur.sums {
			if o, ok := old.sums[u]; !ok || o != s {
				updated = append(updated, u)
			}
		}
		for u := range old.sums {
			if _, ok := cur.sums[u]; !ok {
				updated = append(updated, u)
			}
		}
	} else if contentPart(req.Cursor) != contentPart(cur.cursor) {
		for u := range cur.sums { // another instance's cursor: all may have changed
			updated = append(updated, u)
		}
	}
	sort.Strings(updated)
	res.Updated = updated[:min(len(updated), abi.MaxListItems)]
	res.ListChanged = setPart(req.Cursor) != setPart(cur.cursor)
	return res, nil
}

// contentSums adds the hash of each of the database's resources.
func (st *dbState) contentSums(db string, sums map[string]uint64) {
	h := fnv.New64a()
	s := st.summary(db)
	h.Write([]byte(strconv.Itoa(s.PageSize) + s.Encoding + strconv.Itoa(int(s.UserVersion)) + "/" + strconv.Itoa(int(s.ApplicationID)) + "/" + strconv.Itoa(int(s.SchemaCookie))))
	byTable := map[string]uint64{}
	for _, i := range st.unique {
		o := st.objs[i]
		oh := fnv.New64a()
		oh.Write([]byte(o.Type + "\x00" + o.Name + "\x00" + o.Table + "\x00" + o.SQL))
		sum := oh.Sum64()
		h.Write([]byte(o.Type + "\x00" + o.Name + "\x00" + o.SQL + "\x00"))
		ddl := objectURI(db, o.Type, o.Name, viewDDL)
		sums[ddl] = sum
		sums[ddl+"/"+viewDescription] = sum
		byTable[strings.ToLower(o.Table)] += sum * 31
	}
	for _, i := range st.unique {
		if o := st.objs[i]; o.Type == "table" {
			sums[objectURI(db, o.Type, o.Name, viewDescription)] += byTable[strings.ToLower(o.Name)]
		}
	}
	sums[summaryURI(db)] = h.Sum64()
}

func snapshotOf(sums map[string]uint64) *snapshot {
	uris := make([]string, 0, len(sums))
	for u := range sums {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	content, set := fnv.New64a(), fnv.New64a()
	for _, u := range uris {
		set.Write([]byte(u + "\x00"))
		content.Write([]byte(u + "\x00" + strconv.FormatUint(sums[u], 16) + "\x00"))
	}
	return &snapshot{sums: sums, cursor: "s1." + strconv.FormatUint(content.Sum64(), 16) + "." + strconv.FormatUint(set.Sum64(), 16) + "." + strconv.Itoa(len(uris))}
}

func contentPart(c string) string {
	parts := strings.Split(c, ".")
	if len(parts) != 4 {
		return c
	}
	return parts[1]
}

func setPart(c string) string {
	parts := strings.Split(c, ".")
	if len(parts) != 4 {
		return c
	}
	return parts[2] + "." + parts[3]
}

func (p *provider) remember(s *snapshot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range p.snaps {
		if x.cursor == s.cursor {
			return
		}
	}
	p.snaps = append(p.snaps, s)
	if len(p.snaps) > keepSnapshots {
		p.snaps = p.snaps[1:]
	}
}

func (p *provider) recall(cursor string) *snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range p.snaps {
		if x.cursor == cursor {
			return x
		}
	}
	return nil
}
