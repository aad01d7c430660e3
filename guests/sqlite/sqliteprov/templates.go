package sqliteprov

import (
	"context"
	"sort"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
)

// Templates returns, for each database, a template per kind for the DDL
// and the description of an object by name, and the rows template when
// row samples are on.
func (p *provider) Templates(ctx context.Context, cursor string) (*abi.TemplatesResult, error) {
	if cursor != "" {
		return nil, mcpw.InvalidParams("unknown cursor: templates has a single page")
	}
	dbs, err := p.databases(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := rowsLimit(ctx)
	if err != nil {
		return nil, err
	}
	res := &abi.TemplatesResult{ResourceTemplates: []abi.ResourceTemplate{}}
	for _, db := range dbs {
		for _, kind := range kinds {
			res.ResourceTemplates = append(res.ResourceTemplates,
				abi.ResourceTemplate{URITemplate: objectURI(db.name, kind, "", "") + "{name}", Name: db.name + " " + kind,
					Title: "A " + kind + " of " + db.name, Description: "The CREATE statement of a " + kind + ", by name (complete name).", MIMEType: mimeSQL},
				abi.ResourceTemplate{URITemplate: objectURI(db.name, kind, "", "") + "{name}/" + viewDescription, Name: db.name + " " + kind + " description",
					Title: "A " + kind + " of " + db.name + " (description)", Description: "What the " + kind + "'s CREATE statement declares, as JSON.", MIMEType: mimeJSON})
		}
		if rows > 0 {
			res.ResourceTemplates = append(res.ResourceTemplates, abi.ResourceTemplate{
				URITemplate: objectURI(db.name, "table", "", "") + "{name}/" + viewRows, Name: db.name + " table rows",
				Title: "The first rows of a table of " + db.name, Description: "Up to the operator's cap of rows of a table, as JSON.", MIMEType: mimeJSON})
		}
		if len(res.ResourceTemplates) >= abi.MaxListItems-9 {
			break
		}
	}
	return res, nil
}

// Complete completes the name argument with the names of the template's
// kind of object that start with the value typed, case-insensitively.
func (p *provider) Complete(ctx context.Context, req abi.CompleteRequest) (*abi.CompleteResult, error) {
	if req.Argument.Name != "name" {
		return nil, mcpw.InvalidParams("no such argument: the sqlite templates take name")
	}
	rest, ok := strings.CutPrefix(req.Template, uriPrefix)
	dbName, rest, _ := strings.Cut(rest, "/")
	kind, rest, _ := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(rest, "{name}") {
		return nil, mcpw.InvalidParams("no such template: complete the name of a template this provider lists")
	}
	db, err := p.find(ctx, dbName)
	if err != nil {
		return nil, mcpw.InvalidParams("no such template: complete the name of a template this provider lists")
	}
	st, err := p.state(db)
	if err != nil {
		return nil, err
	}
	rowsOnly := rest == "{name}/"+viewRows
	prefix := strings.ToLower(req.Argument.Value)
	values := []string{}
	for _, i := range st.ordered() {
		o := st.objs[i]
		if rowsOnly && !sampleable(o) {
			continue
		}
		if o.Type == kind && strings.HasPrefix(strings.ToLower(o.Name), prefix) && len(objectURI(db.name, kind, o.Name, viewDescription)) <= abi.MaxURILength && len(o.Name) <= abi.MaxTextField {
			values = append(values, o.Name)
		}
	}
	sort.Strings(values)
	total := len(values)
	if total > abi.MaxCompletionValues {
		values = values[:abi.MaxCompletionValues]
	}
	return &abi.CompleteResult{Values: values, Total: new(total), HasMore: total > len(values)}, nil
}

// sampleable reports whether rows can sample the table: a rowid table with
// a b-tree whose statement parses.
func sampleable(o sqliteObject) bool {
	if o.Type != "table" || o.RootPage == 0 {
		return false
	}
	def, err := ParseCreateTable(o.SQL)
	return err == nil && !def.WithoutRowid && def.Virtual == "" && !def.AsSelect
}
