package sqliteprov

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcp-wasm/mcp-wasm/guests/sqlite/sqlitefmt"
)

type sqliteObject = sqlitefmt.Object

func toJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// summary is the database's resource: what the header says, and the
// objects. It leaves out what every write moves (page count, change
// counter), so that it changes only with the schema and the settings.
type summary struct {
	Database      string         `json:"database"`
	PageSize      int            `json:"pageSize"`
	Encoding      string         `json:"encoding"`
	UserVersion   uint32         `json:"userVersion"`
	ApplicationID uint32         `json:"applicationId"`
	SchemaFormat  uint32         `json:"schemaFormat"`
	SchemaCookie  uint32         `json:"schemaCookie"`
	JournalMode   string         `json:"journalMode"`
	SQLiteVersion string         `json:"sqliteVersion"`
	Objects       map[string]int `json:"objects"`
}

func (st *dbState) summary(db string) summary {
	h := st.header
	s := summary{Database: db, PageSize: h.PageSize, Encoding: h.EncodingName(), UserVersion: h.UserVersion,
		ApplicationID: h.ApplicationID, SchemaFormat: h.SchemaFormat, SchemaCookie: h.SchemaCookie,
		JournalMode: h.JournalMode(), SQLiteVersion: versionString(h.SQLiteVersion), Objects: map[string]int{}}
	for _, k := range kinds {
		s.Objects[k] = 0
	}
	for _, i := range st.unique {
		s.Objects[st.objs[i].Type]++
	}
	return s
}

// versionString renders SQLITE_VERSION_NUMBER (3046001 is "3.46.1").
func versionString(n uint32) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(int(n/1000000)) + "." + strconv.Itoa(int(n/1000%1000)) + "." + strconv.Itoa(int(n%1000))
}

// description is an object's structured description.
type description struct {
	Database string `json:"database"`
	Type     string `json:"type"`
	Name     string `json:"name"`
	Table    string `json:"table"`
	*TableDef
	Index      *IndexDef   `json:"index,omitempty"`
	Automatic  bool        `json:"automatic,omitempty"`
	Indexes    []indexInfo `json:"indexes,omitempty"`
	Triggers   []string    `json:"triggers,omitempty"`
	ParseError string      `json:"parseError,omitempty"`
}

type indexInfo struct {
	Name      string   `json:"name"`
	Unique    bool     `json:"unique"`
	Automatic bool     `json:"automatic"`
	Columns   []string `json:"columns"`
}

func (st *dbState) describe(db string, o sqliteObject) description {
	d := description{Database: db, Type: o.Type, Name: o.Name, Table: o.Table}
	switch o.Type {
	case "table":
		def, err := ParseCreateTable(o.SQL)
		if err != nil {
			d.ParseError = "the CREATE TABLE statement was not understood (" + err.Error() + "); its DDL is served as stored"
		} else {
			d.TableDef = def
		}
		d.Indexes, d.Triggers = []indexInfo{}, []string{}
		for _, i := range st.unique {
			x := st.objs[i]
			if !strings.EqualFold(x.Table, o.Name) {
				continue
			}
			switch x.Type {
			case "index":
				d.Indexes = append(d.Indexes, indexOf(x))
			case "trigger":
				d.Triggers = append(d.Triggers, x.Name)
			}
		}
	case "index":
		if !o.HasSQL {
			d.Automatic = true
			break
		}
		def, err := ParseCreateIndex(o.SQL)
		if err != nil {
			d.ParseError = "the CREATE INDEX statement was not understood (" + err.Error() + "); its DDL is served as stored"
		} else {
			d.Index = def
		}
	}
	return d
}

func indexOf(x sqliteObject) indexInfo {
	info := indexInfo{Name: x.Name, Automatic: !x.HasSQL, Unique: !x.HasSQL, Columns: []string{}}
	if !x.HasSQL {
		return info
	}
	if def, err := ParseCreateIndex(x.SQL); err == nil {
		info.Unique, info.Columns = def.Unique, def.Columns
	}
	return info
}
