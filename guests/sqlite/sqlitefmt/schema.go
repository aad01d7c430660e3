package sqlitefmt

import "fmt"

// Object is one row of sqlite_schema: a table, view, index or trigger.
type Object struct {
	Type     string // "table", "view", "index" or "trigger"
	Name     string
	Table    string // tbl_name: the table an index or trigger belongs to
	RootPage uint32 // the b-tree of a table or index; 0 for views and triggers
	SQL      string // the CREATE statement exactly as stored; "" for automatic indexes
	HasSQL   bool   // false when sql is NULL (automatic indexes)
}

// Schema reads every row of sqlite_schema (the table b-tree at page 1) in
// rowid order, within the Limits.
func (d *DB) Schema() ([]Object, error) {
	var objs []Object
	if d.pages == 0 {
		return objs, nil // an empty file
	}
	var total int64
	err := d.walkTable(1, func(rowid int64, payload []byte) error {
		total += int64(len(payload))
		if total > d.lim.MaxSchemaBytes {
			return fmt.Errorf("%w: the schema is over %d bytes", ErrTooLarge, d.lim.MaxSchemaBytes)
		}
		if len(objs) == d.lim.MaxObjects {
			return fmt.Errorf("%w: the schema has more than %d objects", ErrTooLarge, d.lim.MaxObjects)
		}
		vals, err := decodeRecord(payload, d.Header.TextEncoding)
		if err != nil {
			return fmt.Errorf("sqlite_schema row %d: %w", rowid, err)
		}
		o, err := schemaObject(vals)
		if err != nil {
			return fmt.Errorf("sqlite_schema row %d: %w", rowid, err)
		}
		objs = append(objs, o)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read schema: %w", err)
	}
	return objs, nil
}

func schemaObject(vals []Value) (Object, error) {
	if len(vals) < 5 {
		return Object{}, fmt.Errorf("%w: %d columns, not sqlite_schema's 5", ErrCorrupt, len(vals))
	}
	for i, want := range []Kind{Text, Text, Text} {
		if vals[i].Kind != want {
			return Object{}, fmt.Errorf("%w: column %d is not text", ErrCorrupt, i+1)
		}
	}
	o := Object{Type: vals[0].Text, Name: vals[1].Text, Table: vals[2].Text}
	switch o.Type {
	case "table", "view", "index", "trigger":
	default:
		return Object{}, fmt.Errorf("%w: object type %q is not table, view, index or trigger", ErrCorrupt, clip(o.Type))
	}
	if v := vals[3]; v.Kind == Integer && v.Int > 0 && v.Int < 1<<32 {
		o.RootPage = uint32(v.Int)
	}
	switch vals[4].Kind {
	case Text:
		o.SQL, o.HasSQL = vals[4].Text, true
	case Null:
	default:
		return Object{}, fmt.Errorf("%w: the sql column is neither text nor NULL", ErrCorrupt)
	}
	return o, nil
}

// clip shortens a string from the file for an error message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// Rows calls fn with the rowid and values of the first rows of the rowid
// table whose b-tree is rooted at root, in rowid order, until fn returns
// false. A table without rowid is an index b-tree: Rows refuses it as
// ErrCorrupt naming the page.
func (d *DB) Rows(root uint32, fn func(rowid int64, vals []Value) bool) error {
	return d.walkTable(root, func(rowid int64, payload []byte) error {
		vals, err := decodeRecord(payload, d.Header.TextEncoding)
		if err != nil {
			return fmt.Errorf("row %d: %w", rowid, err)
		}
		if !fn(rowid, vals) {
			return errStop
		}
		return nil
	})
}
