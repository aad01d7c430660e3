package sqliteprov

import (
	"fmt"
	"strings"
)

// Column is a column of a CREATE TABLE statement.
type Column struct {
	Name      string  `json:"name"`
	Type      string  `json:"type"` // the declared type as written; "" when none
	NotNull   bool    `json:"notnull"`
	Default   *string `json:"default"` // the default's source text, or null
	PK        int     `json:"pk"`      // position in the primary key, 0 when not in it
	Unique    bool    `json:"unique,omitempty"`
	Collate   string  `json:"collate,omitempty"`
	Generated string  `json:"generated,omitempty"` // "virtual" or "stored" for a generated column
}

// ForeignKey is one foreign key constraint.
type ForeignKey struct {
	Columns    []string `json:"columns"`
	Table      string   `json:"table"`
	References []string `json:"references"` // empty: the parent's primary key
	OnDelete   string   `json:"onDelete,omitempty"`
	OnUpdate   string   `json:"onUpdate,omitempty"`
}

// TableDef is what a small parser makes of a CREATE TABLE statement.
type TableDef struct {
	Columns      []Column     `json:"columns"`
	PrimaryKey   []string     `json:"primaryKey"`
	ForeignKeys  []ForeignKey `json:"foreignKeys"`
	WithoutRowid bool         `json:"withoutRowid"`
	Strict       bool         `json:"strict"`
	Virtual      string       `json:"virtual,omitempty"` // the module of a virtual table
	AsSelect     bool         `json:"asSelect,omitempty"`
}

// parser walks a token slice.
type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{kind: tokPunct, val: ";", start: len(p.src), end: len(p.src)}
}

func (p *parser) done() bool { return p.i >= len(p.toks) || p.toks[p.i].isPunct(';') }

func (p *parser) next() token { t := p.peek(); p.i++; return t }

// accept consumes the keywords kws in order if they are next.
func (p *parser) accept(kws ...string) bool {
	for k, kw := range kws {
		if p.i+k >= len(p.toks) || !p.toks[p.i+k].is(kw) {
			return false
		}
	}
	p.i += len(kws)
	return true
}

func (p *parser) expect(kws ...string) error {
	if !p.accept(kws...) {
		return fmt.Errorf("expected %s at byte %d", strings.Join(kws, " "), p.peek().start)
	}
	return nil
}

// name consumes a name, or a schema-qualified name, and returns its last
// part.
func (p *parser) name(what string) (string, error) {
	t := p.next()
	if !t.isName() {
		return "", fmt.Errorf("expected %s at byte %d", what, t.start)
	}
	if p.peek().isPunct('.') {
		p.i++
		t = p.next()
		if !t.isName() {
			return "", fmt.Errorf("expected %s after the schema at byte %d", what, t.start)
		}
	}
	return t.val, nil
}

// group consumes a parenthesized group and returns its tokens inside the
// parentheses.
func (p *parser) group() ([]token, error) {
	if !p.peek().isPunct('(') {
		return nil, fmt.Errorf("expected ( at byte %d", p.peek().start)
	}
	start, depth := p.i+1, 0
	for ; p.i < len(p.toks); p.i++ {
		switch {
		case p.toks[p.i].isPunct('('):
			depth++
		case p.toks[p.i].isPunct(')'):
			depth--
			if depth == 0 {
				p.i++
				return p.toks[start : p.i-1], nil
			}
		}
	}
	return nil, fmt.Errorf("unbalanced parentheses")
}

// splitCommas splits tokens at top-level commas.
func splitCommas(toks []token) [][]token {
	var out [][]token
	depth, start := 0, 0
	for i, t := range toks {
		switch {
		case t.isPunct('('):
			depth++
		case t.isPunct(')'):
			depth--
		case t.isPunct(',') && depth == 0:
			out = append(out, toks[start:i])
			start = i + 1
		}
	}
	return append(out, toks[start:])
}

// ParseCreateTable parses a CREATE TABLE (or CREATE VIRTUAL TABLE)
// statement as sqlite_schema stores it. It understands quoting, column
// and table constraints, WITHOUT ROWID, STRICT and generated columns; it
// does not check expressions, only skips them.
func ParseCreateTable(sql string) (*TableDef, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	p := &parser{src: sql, toks: toks}
	if err := p.expect("CREATE"); err != nil {
		return nil, err
	}
	_ = p.accept("TEMP") || p.accept("TEMPORARY")
	def := &TableDef{ForeignKeys: []ForeignKey{}, PrimaryKey: []string{}, Columns: []Column{}}
	virtual := p.accept("VIRTUAL")
	if err := p.expect("TABLE"); err != nil {
		return nil, err
	}
	p.accept("IF", "NOT", "EXISTS")
	if _, err := p.name("a table name"); err != nil {
		return nil, err
	}
	if virtual {
		if err := p.expect("USING"); err != nil {
			return nil, err
		}
		def.Virtual, err = p.name("a module name")
		return def, err
	}
	if p.accept("AS") {
		def.AsSelect = true
		return def, nil
	}
	body, err := p.group()
	if err != nil {
		return nil, err
	}
	for _, part := range splitCommas(body) {
		if err := def.addDefinition(sql, part); err != nil {
			return nil, err
		}
	}
	if err := def.tableOptions(p); err != nil {
		return nil, err
	}
	def.numberPrimaryKey()
	return def, nil
}

func (def *TableDef) tableOptions(p *parser) error {
	for !p.done() {
		switch {
		case p.accept("WITHOUT"):
			if !p.peek().is("ROWID") {
				return fmt.Errorf("expected ROWID after WITHOUT at byte %d", p.peek().start)
			}
			p.i++
			def.WithoutRowid = true
		case p.accept("STRICT"):
			def.Strict = true
		case p.peek().isPunct(','):
			p.i++
		default:
			return fmt.Errorf("unexpected %q after the column list at byte %d", p.peek().val, p.peek().start)
		}
	}
	return nil
}

// numberPrimaryKey sets each column's pk position from PrimaryKey. In a
// WITHOUT ROWID table the primary key's columns are NOT NULL, as SQLite
// enforces (a rowid table's are not, for compatibility).
func (def *TableDef) numberPrimaryKey() {
	for pos, name := range def.PrimaryKey {
		for i := range def.Columns {
			if strings.EqualFold(def.Columns[i].Name, name) && def.Columns[i].PK == 0 {
				def.Columns[i].PK = pos + 1
				def.Columns[i].NotNull = def.Columns[i].NotNull || def.WithoutRowid
				break
			}
		}
	}
}

func (def *TableDef) addDefinition(src string, toks []token) error {
	if len(toks) == 0 {
		return fmt.Errorf("empty column definition")
	}
	p := &parser{src: src, toks: toks}
	first := toks[0]
	for _, kw := range []string{"CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"} {
		if first.is(kw) {
			return def.tableConstraint(p)
		}
	}
	return def.column(p)
}

// columnKeywords start a column constraint, ending the type name.
var columnKeywords = []string{"CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED", "AS"}

func isColumnKeyword(t token) bool {
	for _, kw := range columnKeywords {
		if t.is(kw) {
			return true
		}
	}
	return false
}

func (def *TableDef) column(p *parser) error {
	nt := p.next()
	if !nt.isName() {
		return fmt.Errorf("expected a column name at byte %d", nt.start)
	}
	c := Column{Name: nt.val}
	typeStart, typeEnd := -1, -1
	for !p.done() && (p.peek().kind == tokIdent || p.peek().kind == tokQuoted) && !isColumnKeyword(p.peek()) {
		t := p.next()
		if typeStart < 0 {
			typeStart = t.start
		}
		typeEnd = t.end
	}
	if typeStart >= 0 && p.peek().isPunct('(') {
		if _, err := p.group(); err != nil {
			return err
		}
		typeEnd = p.toks[p.i-1].end
	}
	if typeStart >= 0 {
		c.Type = p.src[typeStart:typeEnd]
	}
	for !p.done() {
		if err := def.columnConstraint(p, &c); err != nil {
			return fmt.Errorf("column %q: %w", c.Name, err)
		}
	}
	def.Columns = append(def.Columns, c)
	return nil
}

func (def *TableDef) columnConstraint(p *parser, c *Column) error {
	switch t := p.next(); {
	case t.is("CONSTRAINT"):
		if !p.next().isName() {
			return fmt.Errorf("expected a constraint name at byte %d", t.end)
		}
	case t.is("PRIMARY"):
		if err := p.expect("KEY"); err != nil {
			return err
		}
		_ = p.accept("ASC") || p.accept("DESC")
		if err := p.conflict(); err != nil {
			return err
		}
		p.accept("AUTOINCREMENT")
		def.PrimaryKey = append(def.PrimaryKey, c.Name)
	case t.is("NOT"):
		if err := p.expect("NULL"); err != nil {
			return err
		}
		c.NotNull = true
		return p.conflict()
	case t.is("NULL"):
		return p.conflict()
	case t.is("UNIQUE"):
		c.Unique = true
		return p.conflict()
	case t.is("CHECK"):
		_, err := p.group()
		return err
	case t.is("DEFAULT"):
		return p.defaultValue(c)
	case t.is("COLLATE"):
		n := p.next()
		if !n.isName() {
			return fmt.Errorf("expected a collation name at byte %d", n.start)
		}
		c.Collate = n.val
	case t.is("REFERENCES"):
		fk, err := p.references()
		if err != nil {
			return err
		}
		fk.Columns = []string{c.Name}
		def.ForeignKeys = append(def.ForeignKeys, fk)
	case t.is("GENERATED"), t.is("AS"):
		if t.is("GENERATED") {
			if err := p.expect("ALWAYS", "AS"); err != nil {
				return err
			}
		}
		if _, err := p.group(); err != nil {
			return err
		}
		c.Generated = "virtual"
		if p.accept("STORED") {
			c.Generated = "stored"
		} else {
			p.accept("VIRTUAL")
		}
	default:
		return fmt.Errorf("unexpected %q at byte %d", t.val, t.start)
	}
	return nil
}

// conflict consumes an optional ON CONFLICT clause.
func (p *parser) conflict() error {
	if !p.accept("ON", "CONFLICT") {
		return nil
	}
	for _, kw := range []string{"ROLLBACK", "ABORT", "FAIL", "IGNORE", "REPLACE"} {
		if p.accept(kw) {
			return nil
		}
	}
	return fmt.Errorf("expected a conflict resolution at byte %d", p.peek().start)
}

// defaultValue reads DEFAULT's value as its source text, as SQLite's
// PRAGMA table_info reports it: a parenthesized expression (without the
// parentheses), a signed number, a literal or a bare word.
func (p *parser) defaultValue(c *Column) error {
	t := p.peek()
	var text string
	switch {
	case t.isPunct('('):
		inner, err := p.group()
		if err != nil {
			return err
		}
		if len(inner) == 0 {
			return fmt.Errorf("empty default at byte %d", t.start)
		}
		// Without the parentheses, as PRAGMA table_info reports it.
		text = p.src[inner[0].start:inner[len(inner)-1].end]
	case (t.isPunct('-') || t.isPunct('+')) && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tokNumber:
		p.i += 2
		text = p.src[t.start:p.toks[p.i-1].end]
	case t.kind == tokNumber || t.kind == tokString || t.kind == tokBlob || t.kind == tokIdent || t.kind == tokQuoted:
		p.i++
		text = p.src[t.start:t.end]
	default:
		return fmt.Errorf("expected a default value at byte %d", t.start)
	}
	c.Default = &text
	return nil
}

// references parses a foreign key clause after REFERENCES.
func (p *parser) references() (ForeignKey, error) {
	fk := ForeignKey{References: []string{}}
	n := p.next()
	if !n.isName() {
		return fk, fmt.Errorf("expected the parent table at byte %d", n.start)
	}
	fk.Table = n.val
	if p.peek().isPunct('(') {
		cols, err := p.group()
		if err != nil {
			return fk, err
		}
		fk.References = columnNames(cols)
	}
	for !p.done() {
		switch {
		case p.accept("ON", "DELETE"):
			fk.OnDelete = p.action()
		case p.accept("ON", "UPDATE"):
			fk.OnUpdate = p.action()
		case p.accept("MATCH"):
			p.i++
		case p.accept("NOT", "DEFERRABLE"), p.accept("DEFERRABLE"):
			_ = p.accept("INITIALLY", "DEFERRED") || p.accept("INITIALLY", "IMMEDIATE")
		default:
			return fk, nil
		}
	}
	return fk, nil
}

// action reads a foreign key action; "" when none is there.
func (p *parser) action() string {
	for _, a := range [][]string{{"SET", "NULL"}, {"SET", "DEFAULT"}, {"CASCADE"}, {"RESTRICT"}, {"NO", "ACTION"}} {
		if p.accept(a...) {
			return strings.Join(a, " ")
		}
	}
	return ""
}

// columnNames returns the column of each comma-separated indexed column
// (its first name token; COLLATE and ASC or DESC are ignored), or its
// source text when it is an expression.
func columnNames(toks []token) []string {
	names := []string{}
	for _, part := range splitCommas(toks) {
		if len(part) == 0 {
			continue
		}
		if part[0].isName() && (len(part) == 1 || part[1].is("COLLATE") || part[1].is("ASC") || part[1].is("DESC")) {
			names = append(names, part[0].val)
		} else {
			names = append(names, "")
		}
	}
	return names
}

func (def *TableDef) tableConstraint(p *parser) error {
	if p.accept("CONSTRAINT") && !p.next().isName() {
		return fmt.Errorf("expected a constraint name")
	}
	switch {
	case p.accept("PRIMARY", "KEY"):
		cols, err := p.group()
		if err != nil {
			return err
		}
		def.PrimaryKey = append(def.PrimaryKey, columnNames(cols)...)
		return p.conflict()
	case p.accept("UNIQUE"):
		if _, err := p.group(); err != nil {
			return err
		}
		return p.conflict()
	case p.accept("CHECK"):
		_, err := p.group()
		return err
	case p.accept("FOREIGN", "KEY"):
		cols, err := p.group()
		if err != nil {
			return err
		}
		if err := p.expect("REFERENCES"); err != nil {
			return err
		}
		fk, err := p.references()
		if err != nil {
			return err
		}
		fk.Columns = columnNames(cols)
		def.ForeignKeys = append(def.ForeignKeys, fk)
		if !p.done() {
			return fmt.Errorf("unexpected %q in a foreign key at byte %d", p.peek().val, p.peek().start)
		}
		return nil
	}
	return fmt.Errorf("unexpected %q at byte %d", p.peek().val, p.peek().start)
}

// IndexDef is what a small parser makes of a CREATE INDEX statement.
type IndexDef struct {
	Unique  bool     `json:"unique"`
	Columns []string `json:"columns"` // each indexed column's source text
	Where   string   `json:"where,omitempty"`
}

// ParseCreateIndex parses CREATE [UNIQUE] INDEX.
func ParseCreateIndex(sql string) (*IndexDef, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	p := &parser{src: sql, toks: toks}
	if err := p.expect("CREATE"); err != nil {
		return nil, err
	}
	def := &IndexDef{Unique: p.accept("UNIQUE"), Columns: []string{}}
	if err := p.expect("INDEX"); err != nil {
		return nil, err
	}
	p.accept("IF", "NOT", "EXISTS")
	if _, err := p.name("an index name"); err != nil {
		return nil, err
	}
	if err := p.expect("ON"); err != nil {
		return nil, err
	}
	if _, err := p.name("a table name"); err != nil {
		return nil, err
	}
	cols, err := p.group()
	if err != nil {
		return nil, err
	}
	for _, part := range splitCommas(cols) {
		if len(part) > 0 {
			def.Columns = append(def.Columns, sql[part[0].start:part[len(part)-1].end])
		}
	}
	if p.accept("WHERE") && !p.done() {
		def.Where = strings.TrimRight(sql[p.peek().start:], " \t\r\n;")
	}
	return def, nil
}
