// Package abi is the contract between the mcp-wasm host and a provider module:
// the ABI version, the names of every export and import, the JSON payload types,
// the status codes a guest returns, and a strict decoder for guest output.
//
// abi/ABI.md is the normative specification; this package is its executable
// form. The package uses the standard library only and builds for GOOS=wasip1,
// so guest SDKs share these types with the host.
//
// It refuses to do anything else: it runs no guest, opens no file and knows
// nothing of MCP sessions or transports.
package abi

// Version is the ABI major version implemented by this package. It appears in
// every export name (ExportPrefix) and in the import module name (ImportModule).
const Version = 1

// Names of the ABI surface. Additive changes keep these names; a breaking
// change introduces mcpw_v2 and new names beside these.
const (
	// ImportModule is the module name of every host import.
	ImportModule = "mcpw_v1"
	// ExportPrefix prefixes every ABI export.
	ExportPrefix = "mcpw_v1_"

	ExportDescribe  = ExportPrefix + "describe"
	ExportList      = ExportPrefix + "list"
	ExportTemplates = ExportPrefix + "templates"
	ExportRead      = ExportPrefix + "read"
	ExportComplete  = ExportPrefix + "complete"
	ExportChanges   = ExportPrefix + "changes"

	// ExportMemory is the linear memory every provider must export.
	ExportMemory = "memory"
	// ExportInitialize is the optional reactor initializer (Go c-shared, C reactor).
	ExportInitialize = "_initialize"

	ImportInputRead   = "input_read"
	ImportOutputWrite = "output_write"
	ImportLog         = "log"
	ImportConfigGet   = "config_get"
	// ImportContentWrite hands the host a read content's bytes as they are
	// (ABI §6.3): no JSON escaping or base64 in the guest. Optional.
	ImportContentWrite = "content_write"
)

// Operation names a provider can implement; each maps to one export.
const (
	OpList      = "list"
	OpTemplates = "templates"
	OpRead      = "read"
	OpComplete  = "complete"
	OpChanges   = "changes"
)

// Operations lists every optional operation in canonical order.
var Operations = []string{OpList, OpTemplates, OpRead, OpComplete, OpChanges}

// ExportFor returns the export name of an operation ("read" -> "mcpw_v1_read").
func ExportFor(op string) string { return ExportPrefix + op }

// Status is the i32 an operation export returns.
type Status = uint32

const (
	// StatusOK means the output is the operation's result payload.
	StatusOK Status = 0
	// StatusError means the output is an Error payload (a domain error such
	// as not found). The instance stays healthy.
	StatusError Status = 1
)

// Return values of host imports.
const (
	// ResultDenied is returned by config_get for a key the operator did not grant.
	ResultDenied int32 = -1
	// ResultOverLimit is returned by output_write when the output cap is exceeded.
	ResultOverLimit int32 = -2
)

// Log levels for the log import.
const (
	LogDebug uint32 = 0
	LogInfo  uint32 = 1
	LogWarn  uint32 = 2
	LogError uint32 = 3
)

// Fixed protocol limits. Hosts may be configured tighter, never looser.
const (
	// MaxURILength bounds every URI in input and output.
	MaxURILength = 2048
	// MaxCompletionValues bounds the values of one completion result (MCP's limit).
	MaxCompletionValues = 100
	// MaxNameLength bounds a provider's name.
	MaxNameLength = 64
	// MaxTextField bounds descriptive strings (names, titles, descriptions, messages).
	MaxTextField = 4096
	// MaxListItems bounds the items of one list or templates page.
	MaxListItems = 1000
	// MaxCursorLength bounds a provider cursor.
	MaxCursorLength = 1024
)
