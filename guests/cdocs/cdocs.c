/*
 * cdocs - an example mcp-wasm provider in C: a handful of reference cards
 * under the scheme cdocs, e.g. cdocs:///http-status.
 *
 *   http-status   HTTP status codes (Markdown)
 *   signals       POSIX signals with their Linux numbers (Markdown)
 *   ascii         the ASCII table in decimal, hex and octal (generated)
 *   json-escapes  JSON string escapes, with a raw test-vector line
 *   crc32-table   the CRC-32 (IEEE) lookup table, 256 little-endian
 *                 uint32 (a 1024-byte blob, generated)
 *   bench-1k      exactly 1024 bytes of text, for benchmarks
 *   motd          the operator's "motd" config value, when granted
 *
 * It implements list (one page), templates (cdocs:///{name}), read and
 * complete (document names by prefix). Build:
 *
 *   clang --target=wasm32-wasi --sysroot=/usr -O2 -mexec-model=reactor \
 *     -Wall -Werror -Wl,--strip-all -I guests/c -o cdocs.wasm \
 *     guests/c/mcpw.c guests/cdocs/cdocs.c
 */
#include "mcpw.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PREFIX "cdocs:///"
#define TEMPLATE PREFIX "{name}"
#define MOTD "motd"

/* ---- Documents ---- */

static void render_http_status(mcpw_buf *b);
static void render_signals(mcpw_buf *b);
static void render_ascii(mcpw_buf *b);
static void render_json_escapes(mcpw_buf *b);
static void render_crc32_table(mcpw_buf *b);
static void render_bench(mcpw_buf *b);
static void render_motd(mcpw_buf *b);

typedef struct {
	const char *name, *title, *description, *mime;
	void (*render)(mcpw_buf *b);
	int blob;
} doc;

static const doc docs[] = {
	{"http-status", "HTTP status codes", "Every common HTTP status code with its reason phrase and meaning.", "text/markdown", render_http_status, 0},
	{"signals", "POSIX signals", "POSIX signals: Linux numbers, default actions and causes.", "text/markdown", render_signals, 0},
	{"ascii", "ASCII table", "The 128 ASCII codes in decimal, hex and octal, with control-character names.", "text/plain", render_ascii, 0},
	{"json-escapes", "JSON string escapes", "How JSON strings escape characters, ending with a raw test-vector line.", "text/markdown", render_json_escapes, 0},
	{"crc32-table", "CRC-32 lookup table", "The CRC-32 (IEEE 802.3, reflected 0xEDB88320) table: 256 little-endian uint32.", "application/octet-stream", render_crc32_table, 1},
	{"bench-1k", "1 KiB benchmark text", "Exactly 1024 bytes of ASCII text, for read benchmarks.", "text/plain", render_bench, 0},
	{MOTD, "Message of the day", "The operator's message of the day (config key \"motd\").", "text/plain", render_motd, 0},
};

#define NDOCS (sizeof docs / sizeof docs[0])

/* available reports whether d can be read: motd only when granted. */
static int available(const doc *d) {
	char none;
	return d->render != render_motd || mcpw_config_get(MOTD, &none, 0) >= 0;
}

static const doc *lookup(const char *name) {
	for (size_t i = 0; i < NDOCS; i++)
		if (strcmp(docs[i].name, name) == 0 && available(&docs[i]))
			return &docs[i];
	return NULL;
}

/* content renders d into a fresh buffer the caller frees. Every document
 * is generated at read time; none is large. */
static mcpw_buf content(const doc *d) {
	mcpw_buf b = MCPW_BUF_INIT;
	d->render(&b);
	return b;
}

/* ---- Operations ---- */

/* read_input reads the call's input and extracts the string at path (NULL
 * if absent), storing its length in *len. *ok is 0 if the input could not
 * be read at all. */
static char *read_input(int32_t in_len, const char *path, size_t *len, int *ok) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	*ok = in != NULL;
	char *v = in && path ? mcpw_json_string(in, n, path, len) : NULL;
	free(in);
	return v;
}

MCPW_EXPORT(describe) int32_t cdocs_describe(int32_t in_len) {
	int ok;
	read_input(in_len, NULL, NULL, &ok);
	mcpw_out("{\"name\":\"cdocs\",\"version\":\"1.0.0\",\"title\":\"C reference cards\","
	         "\"description\":\"Reference cards (HTTP status codes, POSIX signals, ASCII, JSON escapes, CRC-32 table) served by a C provider.\","
	         "\"uriSpace\":[{\"scheme\":\"cdocs\"}],"
	         "\"operations\":[\"list\",\"templates\",\"read\",\"complete\"],"
	         "\"requests\":{\"config\":[{\"key\":\"" MOTD "\",\"reason\":\"served as " PREFIX MOTD " when set\"}]},"
	         "\"cache\":{\"ttlMs\":3600000,\"scope\":\"public\"}}");
	return mcpw_ok();
}

/* page_request reads a list/templates input: there is only one page, so
 * any cursor is one we never issued. Returns 0 after writing the error. */
static int page_request(int32_t in_len) {
	int ok;
	char *cursor = read_input(in_len, "cursor", NULL, &ok);
	int has_cursor = cursor != NULL;
	free(cursor);
	if (!ok) {
		mcpw_error(MCPW_INTERNAL, "cannot read the input");
		return 0;
	}
	if (has_cursor) {
		mcpw_error(MCPW_INVALID_PARAMS, "unknown cursor: cdocs lists one page");
		return 0;
	}
	return 1;
}

MCPW_EXPORT(list) int32_t cdocs_list(int32_t in_len) {
	if (!page_request(in_len))
		return MCPW_ERROR;
	mcpw_out("{\"resources\":[");
	const char *sep = "";
	for (size_t i = 0; i < NDOCS; i++) {
		const doc *d = &docs[i];
		if (!available(d))
			continue;
		mcpw_buf b = content(d);
		mcpw_out_printf("%s{\"uri\":\"" PREFIX "%s\",\"name\":\"%s\",\"title\":", sep, d->name, d->name);
		mcpw_out_json_cstr(d->title);
		mcpw_out(",\"description\":");
		mcpw_out_json_cstr(d->description);
		mcpw_out_printf(",\"mimeType\":\"%s\",\"size\":%zu}", d->mime, b.len);
		mcpw_buf_free(&b);
		sep = ",";
	}
	mcpw_out("]}");
	return mcpw_ok();
}

MCPW_EXPORT(templates) int32_t cdocs_templates(int32_t in_len) {
	if (!page_request(in_len))
		return MCPW_ERROR;
	mcpw_out("{\"resourceTemplates\":[{\"uriTemplate\":\"" TEMPLATE "\",\"name\":\"cdocs-card\","
	         "\"title\":\"cdocs reference card\","
	         "\"description\":\"A reference card by name; complete {name} to see them all.\"}]}");
	return mcpw_ok();
}

/* not_found reports an unknown document, quoting (at most 256 bytes of) its name. */
static int32_t not_found(const char *name) {
	mcpw_buf msg = MCPW_BUF_INIT;
	mcpw_buf_printf(&msg, "no cdocs document named \"%.*s\"; list them, or complete " TEMPLATE, 256, name);
	int32_t status = mcpw_error(MCPW_NOT_FOUND, msg.failed ? "no such cdocs document" : msg.data);
	mcpw_buf_free(&msg);
	return status;
}

MCPW_EXPORT(read) int32_t cdocs_read(int32_t in_len) {
	int ok;
	size_t len = 0;
	char *uri = read_input(in_len, "uri", &len, &ok);
	if (!uri)
		return mcpw_error(MCPW_INVALID_PARAMS, "read needs a uri");
	/* The scheme is case-insensitive; the rest must be exactly ///name
	 * (and hold no U+0000, which would end the name early for strcmp). */
	size_t plen = strlen(PREFIX);
	const char *name = strncasecmp(uri, PREFIX, plen) == 0 ? uri + plen : uri;
	const doc *d = name != uri && strlen(uri) == len ? lookup(name) : NULL;
	if (!d) {
		mcpw_log(MCPW_INFO, "read: no document named \"%.*s\"", 64, name);
		int32_t status = not_found(name);
		free(uri);
		return status;
	}
	free(uri);
	mcpw_buf b = content(d);
	if (b.failed) {
		mcpw_buf_free(&b);
		return mcpw_error(MCPW_INTERNAL, "out of memory rendering the document");
	}
	mcpw_out_printf("{\"contents\":[{\"uri\":\"" PREFIX "%s\",\"mimeType\":\"%s\"", d->name, d->mime);
	if (d->blob)
		mcpw_out_blob_content(b.data, b.len);
	else
		mcpw_out_text_content(b.data ? b.data : "", b.len);
	mcpw_out("}]}");
	mcpw_buf_free(&b);
	return mcpw_ok();
}

/* complete offers document names starting with the typed prefix. */
MCPW_EXPORT(complete) int32_t cdocs_complete(int32_t in_len) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	char *tpl = in ? mcpw_json_string(in, n, "template", NULL) : NULL;
	char *arg = in ? mcpw_json_string(in, n, "argument.name", NULL) : NULL;
	char *val = in ? mcpw_json_string(in, n, "argument.value", NULL) : NULL;
	free(in);
	int known = tpl && strcmp(tpl, TEMPLATE) == 0;
	int ours = known && arg && strcmp(arg, "name") == 0; /* other arguments: no values */
	size_t plen = val ? strlen(val) : 0;
	int count = 0;
	mcpw_out("{\"values\":[");
	for (size_t i = 0; ours && i < NDOCS; i++) {
		if (strncmp(docs[i].name, val ? val : "", plen) == 0 && available(&docs[i]))
			mcpw_out_printf("%s\"%s\"", count++ ? "," : "", docs[i].name);
	}
	mcpw_out_printf("],\"total\":%d}", count);
	free(tpl);
	free(arg);
	free(val);
	if (!known) /* discards the output written above */
		return mcpw_error(MCPW_INVALID_PARAMS, "unknown template; cdocs has only " TEMPLATE);
	return mcpw_ok();
}

/* ---- Renderers ---- */

static void render_http_status(mcpw_buf *b) {
	static const struct {
		int code;
		const char *reason, *meaning;
	} codes[] = {
		{100, "Continue", "Send the request body."},
		{101, "Switching Protocols", "Upgrade accepted (e.g. WebSocket)."},
		{103, "Early Hints", "Preload hints before the final response."},
		{200, "OK", "Success."},
		{201, "Created", "A resource was created; see Location."},
		{202, "Accepted", "Queued for processing, not done yet."},
		{204, "No Content", "Success, no body."},
		{206, "Partial Content", "A Range request was served."},
		{301, "Moved Permanently", "Use the new URL from now on (method may change to GET)."},
		{302, "Found", "Temporary redirect (method may change to GET)."},
		{303, "See Other", "Fetch the result with GET at Location."},
		{304, "Not Modified", "Your cached copy is still valid."},
		{307, "Temporary Redirect", "Repeat the same method at Location."},
		{308, "Permanent Redirect", "Like 301, but the method must not change."},
		{400, "Bad Request", "Malformed request."},
		{401, "Unauthorized", "Authenticate first (see WWW-Authenticate)."},
		{403, "Forbidden", "Authenticated, but not allowed."},
		{404, "Not Found", "No such resource."},
		{405, "Method Not Allowed", "See the Allow header."},
		{406, "Not Acceptable", "No representation matches Accept."},
		{408, "Request Timeout", "The client was too slow."},
		{409, "Conflict", "Conflicts with the resource's current state."},
		{410, "Gone", "Removed for good."},
		{412, "Precondition Failed", "If-Match / If-Unmodified-Since failed."},
		{413, "Content Too Large", "The body is over the server's limit."},
		{414, "URI Too Long", "The target URI is over the server's limit."},
		{415, "Unsupported Media Type", "The Content-Type is not accepted."},
		{416, "Range Not Satisfiable", "The Range lies outside the resource."},
		{418, "I'm a teapot", "RFC 2324; reserved, not for real use."},
		{422, "Unprocessable Content", "Well-formed but semantically invalid."},
		{425, "Too Early", "Refused to risk replaying early data."},
		{428, "Precondition Required", "Send a conditional request."},
		{429, "Too Many Requests", "Rate limited; see Retry-After."},
		{431, "Request Header Fields Too Large", "Headers are over the limit."},
		{451, "Unavailable For Legal Reasons", "Blocked by a legal demand."},
		{500, "Internal Server Error", "The server failed."},
		{501, "Not Implemented", "The method is not supported at all."},
		{502, "Bad Gateway", "An upstream server answered badly."},
		{503, "Service Unavailable", "Overloaded or down; see Retry-After."},
		{504, "Gateway Timeout", "An upstream server did not answer in time."},
		{505, "HTTP Version Not Supported", "The HTTP version is refused."},
	};
	mcpw_buf_printf(b, "# HTTP status codes\n\nRFC 9110 unless noted. 1xx informational, 2xx success, "
	                   "3xx redirection, 4xx client error, 5xx server error.\n\n"
	                   "| Code | Reason | Meaning |\n|---|---|---|\n");
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
		mcpw_buf_printf(b, "| %d | %s | %s |\n", codes[i].code, codes[i].reason, codes[i].meaning);
}

static void render_signals(mcpw_buf *b) {
	static const struct {
		const char *name;
		int number;
		const char *action, *cause;
	} sigs[] = {
		{"SIGHUP", 1, "Term", "Hangup of the controlling terminal; daemons reload config."},
		{"SIGINT", 2, "Term", "Interrupt from the keyboard (`Ctrl-C`)."},
		{"SIGQUIT", 3, "Core", "Quit from the keyboard (`Ctrl-\\`)."},
		{"SIGILL", 4, "Core", "Illegal instruction."},
		{"SIGTRAP", 5, "Core", "Trace or breakpoint trap."},
		{"SIGABRT", 6, "Core", "abort()."},
		{"SIGBUS", 7, "Core", "Bus error (bad memory access, e.g. truncated mmap)."},
		{"SIGFPE", 8, "Core", "Arithmetic error (e.g. integer division by zero)."},
		{"SIGKILL", 9, "Term", "Kill; cannot be caught, blocked or ignored."},
		{"SIGUSR1", 10, "Term", "User-defined."},
		{"SIGSEGV", 11, "Core", "Invalid memory reference."},
		{"SIGUSR2", 12, "Term", "User-defined."},
		{"SIGPIPE", 13, "Term", "Write to a pipe or socket with no reader."},
		{"SIGALRM", 14, "Term", "alarm() timer expired."},
		{"SIGTERM", 15, "Term", "Polite termination request (kill's default)."},
		{"SIGCHLD", 17, "Ign", "A child stopped or exited."},
		{"SIGCONT", 18, "Cont", "Continue if stopped."},
		{"SIGSTOP", 19, "Stop", "Stop; cannot be caught, blocked or ignored."},
		{"SIGTSTP", 20, "Stop", "Stop from the keyboard (`Ctrl-Z`)."},
		{"SIGTTIN", 21, "Stop", "Background process read the terminal."},
		{"SIGTTOU", 22, "Stop", "Background process wrote the terminal."},
		{"SIGURG", 23, "Ign", "Urgent data on a socket."},
		{"SIGXCPU", 24, "Core", "CPU time limit exceeded (RLIMIT_CPU)."},
		{"SIGXFSZ", 25, "Core", "File size limit exceeded (RLIMIT_FSIZE)."},
		{"SIGVTALRM", 26, "Term", "Virtual timer expired."},
		{"SIGPROF", 27, "Term", "Profiling timer expired."},
		{"SIGWINCH", 28, "Ign", "Terminal window size changed (not POSIX, universal)."},
		{"SIGPOLL", 29, "Term", "Pollable event (Linux: SIGIO)."},
		{"SIGSYS", 31, "Core", "Bad system call."},
	};
	mcpw_buf_printf(b, "# POSIX signals\n\nNumbers are Linux on x86 and ARM; POSIX fixes only 1, 2, 3, 6, 9, 14 "
	                   "and 15 (the numbers `kill -N` accepts). Actions: Term terminates, Core terminates "
	                   "and dumps core, Ign ignores, Stop stops, Cont continues.\n\n"
	                   "| Signal | No. | Default | Cause |\n|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		mcpw_buf_printf(b, "| %s | %d | %s | %s |\n", sigs[i].name, sigs[i].number, sigs[i].action, sigs[i].cause);
}

static void render_ascii(mcpw_buf *b) {
	static const char *const names[33] = {
		"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF",
		"VT", "FF", "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK",
		"SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US", "SP",
	};
	mcpw_buf_printf(b, "ASCII (US-ASCII, ANSI X3.4-1986)\n\n");
	for (int col = 0; col < 4; col++)
		mcpw_buf_printf(b, col < 3 ? "%3s  %2s %3s %-7s" : "%3s  %2s %3s %s\n", "Dec", "Hx", "Oct", "Chr");
	for (int row = 0; row < 32; row++) {
		for (int col = 0; col < 4; col++) {
			int c = col * 32 + row;
			char ch[2] = {(char)c, 0};
			const char *name = c <= 32 ? names[c] : c == 127 ? "DEL" : ch;
			mcpw_buf_printf(b, col < 3 ? "%3d  %02X %03o %-7s" : "%3d  %02X %03o %s\n", c, c, c, name);
		}
	}
}

static void render_json_escapes(mcpw_buf *b) {
	static const char text[] =
		"# JSON string escapes (RFC 8259 section 7)\n"
		"\n"
		"| Character | In a JSON string |\n"
		"|---|---|\n"
		"| quotation mark \" | `\\\"` |\n"
		"| reverse solidus \\ | `\\\\` |\n"
		"| solidus / | `/` or `\\/` |\n"
		"| backspace U+0008 | `\\b` |\n"
		"| form feed U+000C | `\\f` |\n"
		"| line feed U+000A | `\\n` |\n"
		"| carriage return U+000D | `\\r` |\n"
		"| tab U+0009 | `\\t` |\n"
		"| other U+0000 to U+001F | `\\u00XX`, e.g. `\\u001b` |\n"
		"| beyond U+FFFF, e.g. U+1F600 | raw, or a surrogate pair `\\ud83d\\ude00` |\n"
		"\n"
		"Everything else may appear raw as UTF-8 (é, ß, 日本語, 😀). Go's encoding/json "
		"also escapes <, > and & as `\\u003c`, `\\u003e` and `\\u0026`, and replaces invalid "
		"UTF-8 with U+FFFD.\n"
		"\n"
		"## Test vector\n"
		"\n"
		"The last line holds the raw characters: a quote, a backslash, a tab, U+0001, U+001F, "
		"DEL, é, 日本語 and 😀.\n"
		"\"\\\t\x01\x1f\x7f" "é日本語😀\n";
	mcpw_buf_append(b, text, sizeof text - 1);
}

static void render_crc32_table(mcpw_buf *b) {
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		unsigned char le[4] = {(unsigned char)c, (unsigned char)(c >> 8), (unsigned char)(c >> 16), (unsigned char)(c >> 24)};
		mcpw_buf_append(b, le, 4);
	}
}

/* render_bench serves 16 lines of 64 bytes: exactly 1024 bytes. */
static void render_bench(mcpw_buf *b) {
	static const char text[] =
		"00 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"01 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"02 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"03 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"04 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"05 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"06 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"07 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"08 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"09 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"10 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"11 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"12 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"13 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"14 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n"
		"15 The quick brown fox jumps over the lazy dog. 0123456789ABCDE\n";
	_Static_assert(sizeof text - 1 == 1024, "bench-1k must be 1024 bytes");
	mcpw_buf_append(b, text, sizeof text - 1);
}

static void render_motd(mcpw_buf *b) {
	char small[256];
	int32_t n = mcpw_config_get(MOTD, small, sizeof small);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		mcpw_buf_append(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->failed = 1;
		return;
	}
	if (mcpw_config_get(MOTD, big, (size_t)n + 1) == n)
		mcpw_buf_append(b, big, (size_t)n);
	free(big);
}
