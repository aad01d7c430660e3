package sqliteprov

import (
	"context"
	"encoding/base64"
	"errors"
	"math"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/abi"
	"github.com/mcp-wasm/mcp-wasm/guests/go/mcpw"
	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqlitefmt"
)

const (
	// maxValueBytes cuts a text or blob value in a sample.
	maxValueBytes = 256
	// maxSampleBytes bounds a whole sample, whatever the rows cap.
	maxSampleBytes = 1 << 20
)

type rowsSample struct {
	Database  string   `json:"database"`
	Table     string   `json:"table"`
	Columns   []string `json:"columns"`
	Limit     int      `json:"limit"`
	Rows      [][]any  `json:"rows"`
	Truncated bool     `json:"truncated"`
}

// rows reads the first rows of a rowid table, up to config rows.
func (p *provider) rows(ctx context.Context, db database, o sqlitefmt.Object, uri string) (*abi.ReadResult, error) {
	limit, err := rowsLimit(ctx)
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		return nil, mcpw.NotFound("row samples are off: the operator sets config %s to turn them on", keyRows)
	}
	def, _ := ParseCreateTable(o.SQL)
	if !sampleable(o) {
		return nil, mcpw.NotFound("table %s of %s has no rows this provider can sample (a WITHOUT ROWID, virtual or unparsed table)", clip(o.Name), db.name)
	}
	sample := rowsSample{Database: db.name, Table: o.Name, Limit: limit, Rows: [][]any{}}
	alias := -1 // the INTEGER PRIMARY KEY column, stored as NULL: its value is the rowid
	for i, c := range def.Columns {
		sample.Columns = append(sample.Columns, c.Name)
		if c.PK == 1 && len(def.PrimaryKey) == 1 && strings.EqualFold(c.Type, "INTEGER") {
			alias = i
		}
	}
	err = sqlitefmt.Snapshot(opener(db.path), limits, func(d *sqlitefmt.DB) error {
		sample.Rows, sample.Truncated = sample.Rows[:0], false
		root, err := rootNow(d, o)
		if err != nil {
			return err
		}
		size := 0
		return d.Rows(root, func(rowid int64, vals []sqlitefmt.Value) bool {
			if len(sample.Rows) == limit || size > maxSampleBytes {
				sample.Truncated = true
				return false
			}
			row := make([]any, len(def.Columns))
			for i := range row {
				switch {
				case i == alias:
					row[i] = rowid
				case i < len(vals):
					row[i] = jsonValue(vals[i], &size)
				}
			}
			sample.Rows = append(sample.Rows, row)
			return true
		})
	})
	if err != nil {
		return nil, readError(db, err)
	}
	return jsonResult(uri, sample)
}

// rootNow finds the table's root page in this snapshot's schema: the
// cached one may be older.
func rootNow(d *sqlitefmt.DB, o sqlitefmt.Object) (uint32, error) {
	objs, err := d.Schema()
	if err != nil {
		return 0, err
	}
	for _, x := range objs {
		if x.Type == "table" && x.Name == o.Name && x.RootPage != 0 {
			return x.RootPage, nil
		}
	}
	return 0, errors.New("the table was dropped")
}

// jsonValue renders a value for JSON: text and blobs cut to
// maxValueBytes, a blob as {"base64","size"}, a NaN or infinity as text.
func jsonValue(v sqlitefmt.Value, size *int) any {
	switch v.Kind {
	case sqlitefmt.Integer:
		*size += 8
		return v.Int
	case sqlitefmt.Float:
		*size += 8
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return "NaN/Inf"
		}
		return v.Float
	case sqlitefmt.Text:
		s := v.Text
		if len(s) > maxValueBytes {
			s = strings.ToValidUTF8(s[:maxValueBytes], "") + "..."
		}
		*size += len(s)
		return s
	case sqlitefmt.Blob:
		b := v.Blob[:min(len(v.Blob), maxValueBytes)]
		*size += len(b) * 4 / 3
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b), "size": len(v.Blob)}
	}
	return nil
}
