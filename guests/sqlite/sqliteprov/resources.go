package sqliteprov

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

const (
	pageSize  = 500
	mimeSQL   = "application/sql"
	mimeJSON  = "application/json"
	cursorPfx = "o:"
)

// List lists, for each database, its summary, then each object's DDL and
// description, tables first, each kind by name. The cursor is the offset
// of the next entry.
func (p *provider) List(ctx context.Context, cursor string) (*abi.ListResult, error) {
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(cursor, cursorPfx))
		if !strings.HasPrefix(cursor, cursorPfx) || err != nil || n <= 0 {
			return nil, mcpw.InvalidParams("unknown cursor: pass back a nextCursor of this provider")
		}
		start = n
	}
	dbs, err := p.databases(ctx)
	if err != nil {
		return nil, err
	}
	res := &abi.ListResult{Resources: []abi.Resource{}}
	i := 0
	for _, db := range dbs {
		st, err := p.state(db)
		if err != nil {
			mcpw.Logf(ctx, mcpw.LevelWarn, "list: %v", err)
			continue
		}
		for _, r := range st.resources(db.name) {
			if i >= start && len(res.Resources) < pageSize {
				res.Resources = append(res.Resources, r)
			} else if len(res.Resources) == pageSize {
				res.NextCursor = cursorPfx + strconv.Itoa(i)
				return res, nil
			}
			i++
		}
	}
	return res, nil
}

// resources lists a database's resources.
func (st *dbState) resources(db string) []abi.Resource {
	out := make([]abi.Resource, 0, 1+2*len(st.unique))
	out = append(out, abi.Resource{URI: summaryURI(db), Name: db, Title: "SQLite database " + db, MIMEType: mimeJSON,
		Description: "Summary of the database: page size, encoding, user_version, object counts."})
	for _, i := range st.ordered() {
		o := st.objs[i]
		ddl := objectURI(db, o.Type, o.Name, viewDDL)
		if len(ddl)+len("/description") > abi.MaxURILength || len(o.Name) > abi.MaxTextField-64 {
			continue // no URI of it would read back
		}
		label := o.Type + " " + o.Name
		out = append(out,
			abi.Resource{URI: ddl, Name: db + ": " + label, Title: label, MIMEType: mimeSQL, Size: new(int64(len(ddlText(o))))},
			abi.Resource{URI: ddl + "/" + viewDescription, Name: db + ": " + label + " (description)", Title: label + " (description)", MIMEType: mimeJSON})
	}
	return out
}

// Read serves a summary, a DDL, a description or a rows sample.
func (p *provider) Read(ctx context.Context, uri string) (*abi.ReadResult, error) {
	t, err := parseURI(uri)
	if err != nil {
		return nil, err
	}
	db, err := p.find(ctx, t.db)
	if err != nil {
		return nil, err
	}
	st, err := p.state(db)
	if err != nil {
		return nil, err
	}
	if t.kind == "" {
		return jsonResult(uri, st.summary(db.name))
	}
	o, ok := st.object(t.kind, t.name)
	if !ok {
		return nil, mcpw.NotFound("database %s has no %s of that name", db.name, clip(t.kind))
	}
	switch t.view {
	case viewDDL:
		return &abi.ReadResult{Contents: []abi.Content{mcpw.Text(uri, mimeSQL, ddlText(o))}}, nil
	case viewDescription:
		return jsonResult(uri, st.describe(db.name, o))
	}
	if o.Type != "table" {
		return nil, mcpw.NotFound("only tables have rows")
	}
	return p.rows(ctx, db, o, uri)
}

// find returns the served database named name.
func (p *provider) find(ctx context.Context, name string) (database, error) {
	dbs, err := p.databases(ctx)
	if err != nil {
		return database{}, err
	}
	for _, db := range dbs {
		if db.name == name {
			return db, nil
		}
	}
	return database{}, mcpw.NotFound("no database is named %q", clip(name))
}

func jsonResult(uri string, v any) (*abi.ReadResult, error) {
	b, err := toJSON(v)
	if err != nil {
		return nil, mcpw.Internal("encode %s: %v", clip(uri), err)
	}
	return &abi.ReadResult{Contents: []abi.Content{mcpw.Text(uri, mimeJSON, b)}}, nil
}

// ddlText is an object's CREATE statement as stored; an automatic index
// has none, and says so in a comment.
func ddlText(o sqliteObject) string {
	if o.HasSQL {
		return o.SQL
	}
	return "-- " + o.Name + ": an automatic index SQLite made for a UNIQUE or PRIMARY KEY constraint of " + o.Table + "; it has no CREATE statement\n"
}
