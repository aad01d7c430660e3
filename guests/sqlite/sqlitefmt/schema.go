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
	var raw []rawValue // reused: one record at a time
	err := d.walkTable(1, func(rowid int64, payload []byte) error {
		total += int64(len(payload))
		if total > d.lim.MaxSchemaBytes {
			return fmt.Errorf("%w: the schema is over %d bytes", ErrTooLarge, d.lim.MaxSchemaBytes)
		}
		if len(objs) == d.lim.MaxObjects {
			return fmt.Errorf("%w: the schema has more than %d objects", ErrTooLarge, d.lim.MaxObjects)
		}
		var err error
		raw, err = decodeRaw(payload, raw[:0])
		if err != nil {
			return fmt.Errorf("sqlite_schema row %d: %w", rowid, err)
		}
		o, err := d.schemaObject(raw)
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

// objectTypes are the type column's values, as constants: no string is
// made per row for them.
var objectTypes = []string{"table", "view", "index", "trigger"}

func (d *DB) schemaObject(vals []rawValue) (Object, error) {
	if len(vals) < 5 {
		return Object{}, fmt.Errorf("%w: %d columns, not sqlite_schema's 5", ErrCorrupt, len(vals))
	}
	for i := range 3 {
		if vals[i].kind() != Text {
			return Object{}, fmt.Errorf("%w: column %d is not text", ErrCorrupt, i+1)
		}
	}
	enc := d.Header.TextEncoding
	var o Object
	for _, t := range objectTypes {
		if enc == EncodingUTF8 && string(vals[0].b) == t { // compiled without a copy
			o.Type = t
		}
	}
	if o.Type == "" {
		kind := decodeText(vals[0].b, enc)
		for _, t := range objectTypes {
			if kind == t {
				o.Type = t
			}
		}
		if o.Type == "" {
			return Object{}, fmt.Errorf("%w: object type %q is not table, view, index or trigger", ErrCorrupt, clip(kind))
		}
	}
	o.Name = decodeText(vals[1].b, enc)
	if string(vals[2].b) == string(vals[1].b) {
		o.Table = o.Name // one string, not two equal ones
	} else {
		o.Table = decodeText(vals[2].b, enc)
	}
	if v := vals[3].value(enc); v.Kind == Integer && v.Int > 0 && v.Int < 1<<32 {
		o.RootPage = uint32(v.Int)
	}
	switch vals[4].kind() {
	case Text:
		o.SQL, o.HasSQL = decodeText(vals[4].b, enc), true
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
