/*
 * mcpw.h - the C SDK for mcp-wasm providers (ABI mcpw_v1).
 *
 * A provider is a WASI reactor (clang -mexec-model=reactor) that exports
 * mcpw_v1_describe and any of the optional operations list, templates, read,
 * complete and changes. The host calls an export with the byte length of the
 * call's input JSON; the export reads the input, writes its output JSON and
 * returns a status:
 *
 *   MCPW_OK    (0)  the output is the operation's result payload;
 *   MCPW_ERROR (1)  the output is {"code":"not_found"|"invalid_params"|
 *                   "internal","message":"..."} (use mcpw_error()).
 *
 * Any other status, or a call with no output, is an ABI violation and the
 * host discards the instance. The describe output's "operations" array must
 * name exactly the optional operations the module exports.
 *
 * A typical export:
 *
 *   MCPW_EXPORT(read) int32_t cd_read(int32_t in_len) {
 *       size_t n;
 *       char *in = mcpw_input(in_len, &n);          // resets the output
 *       char *uri = in ? mcpw_json_string(in, n, "uri", NULL) : NULL;
 *       free(in);
 *       if (!uri) return mcpw_error(MCPW_INVALID_PARAMS, "missing uri");
 *       ...
 *       mcpw_out("{\"contents\":[{\"uri\":");
 *       mcpw_out_json_cstr(uri);
 *       mcpw_out(",\"text\":");
 *       mcpw_out_json_string(text, text_len);
 *       mcpw_out("}]}");
 *       free(uri);
 *       return mcpw_ok();                           // sends the output
 *   }
 *
 * Memory ownership:
 *   - The guest owns all of its linear memory. The host writes only into the
 *     buffers passed to input_read and config_get during the same call, and
 *     never keeps a pointer.
 *   - mcpw_input() and mcpw_json_string() return buffers from malloc(); the
 *     caller frees them.
 *   - The output is collected in an SDK-owned buffer and sent to the host in
 *     one output_write by mcpw_ok() or mcpw_error(). Nothing reaches the host
 *     before that, so mcpw_error() can be called after output was started:
 *     it discards what was written. mcpw_input() also discards any output
 *     left over from an earlier call.
 *   - An mcpw_buf owns its data; release it with mcpw_buf_free().
 *   - If memory runs out while writing output, mcpw_ok() sends an
 *     "internal" error instead and returns MCPW_ERROR.
 *
 * Every string the SDK writes as JSON is escaped: quotes, backslashes and
 * control characters are escaped, and invalid UTF-8 is replaced by U+FFFD,
 * so the host's strict decoder always accepts it.
 *
 * The SDK imports only module "mcpw_v1" (http_fetch and http_read only if
 * the provider calls mcpw_http_fetch); it uses no stdio (see mcpw_buf_printf
 * for its small formatter), so a provider that avoids stdio itself needs no
 * WASI import at all.
 */
#ifndef MCPW_H
#define MCPW_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MCPW_EXPORT(op) exports a function as the ABI operation op, e.g.
 * MCPW_EXPORT(describe) int32_t my_describe(int32_t in_len). */
#define MCPW_EXPORT(op) __attribute__((export_name("mcpw_v1_" #op)))

/* Status codes an export returns. */
#define MCPW_OK 0
#define MCPW_ERROR 1

/* Domain error codes for mcpw_error(). */
#define MCPW_NOT_FOUND "not_found"
#define MCPW_INVALID_PARAMS "invalid_params"
#define MCPW_INTERNAL "internal"

/* Log levels for mcpw_log(). */
#define MCPW_DEBUG 0
#define MCPW_INFO 1
#define MCPW_WARN 2
#define MCPW_LOG_ERROR 3

/* ---- Raw host imports (module "mcpw_v1"). Prefer the helpers below. ---- */

#define MCPW_IMPORT(name) __attribute__((import_module("mcpw_v1"), import_name(name)))

/* Copies min(len, input length) bytes of the call's input to ptr; returns the count. */
MCPW_IMPORT("input_read") int32_t mcpw_input_read(void *ptr, int32_t len);
/* Appends len bytes to the call's output; returns 0, or -2 over the output cap. */
MCPW_IMPORT("output_write") int32_t mcpw_output_write(const void *ptr, int32_t len);
/* Logs a message (truncated at 4 KiB; at most 64 messages per call are kept). */
MCPW_IMPORT("log") void mcpw_log_write(int32_t level, const void *ptr, int32_t len);
/* Returns the value length and copies it if it fits in cap; -1 if not granted. */
MCPW_IMPORT("config_get") int32_t mcpw_config_get_raw(const void *key, int32_t key_len, void *val, int32_t cap);
/* Hands a read content's bytes to the host as they are; returns their index
 * (for "rawText"/"rawBlob") or -2 past the output limit. See ABI §6.3. */
MCPW_IMPORT("content_write") int32_t mcpw_content_write(const void *ptr, int32_t len);
/* Sends the FetchRequest JSON at req; returns the length of the held answer.
 * Linked only for providers granted outbound HTTP (use mcpw_http_fetch). */
MCPW_IMPORT("http_fetch") int32_t mcpw_http_fetch_raw(const void *req, int32_t len);
/* Copies min(len, answer length) bytes of the held answer to ptr. */
MCPW_IMPORT("http_read") int32_t mcpw_http_read_raw(void *ptr, int32_t len);

/* ---- Input ---- */

/* mcpw_input reads the whole input of the current call (in_len is the
 * argument the export received) into a malloc'd, NUL-terminated buffer and
 * stores its length in *out_len (if out_len is not NULL). It also discards
 * any unsent output. Returns NULL if in_len is negative or memory runs out.
 * The caller frees the result. */
char *mcpw_input(int32_t in_len, size_t *out_len);

/* mcpw_json_string finds the string member named by path in the JSON object
 * json[0..len) and returns it decoded (escapes resolved, \uXXXX surrogate
 * pairs joined, lone surrogates replaced by U+FFFD) in a malloc'd,
 * NUL-terminated buffer; *out_len (if not NULL) gets its length, which can
 * be larger than strlen() if the value contains U+0000. A path is a member
 * name, or names joined by '.' to reach into nested objects, e.g. "uri",
 * "cursor", "argument.name". Returns NULL if the member is absent, is not a
 * string, the JSON is malformed, or memory runs out. The caller frees the
 * result. It is meant for the host's inputs, not as a general JSON parser. */
char *mcpw_json_string(const char *json, size_t len, const char *path, size_t *out_len);

/* mcpw_json_int finds the integer member at path (as for mcpw_json_string)
 * and stores it in *out. Returns 1, or 0 if it is absent, not an integer
 * (a fraction or exponent), longer than 18 digits, or the JSON is
 * malformed. */
int mcpw_json_int(const char *json, size_t len, const char *path, int64_t *out);

/* mcpw_json_array_string returns element index (from 0) of the array of
 * strings at path, decoded into a malloc'd, NUL-terminated buffer, or NULL
 * past the end or if the element is not a string. To read the "paths" of a
 * changes request, call it with index 0, 1, ... until it returns NULL. */
char *mcpw_json_array_string(const char *json, size_t len, const char *path, size_t index, size_t *out_len);

/* mcpw_base64_decode decodes standard, padded base64 s[0..n) into a
 * malloc'd buffer (NUL-terminated, for convenience) and stores its length
 * in *out_len. Returns NULL if s is malformed or memory runs out. */
unsigned char *mcpw_base64_decode(const char *s, size_t n, size_t *out_len);

/* ---- Output (collected by the SDK, sent by mcpw_ok / mcpw_error) ---- */

/* Appends n raw bytes; the caller is responsible for them being valid JSON. */
void mcpw_out_raw(const char *p, size_t n);
/* Appends a NUL-terminated string raw (for JSON punctuation and keys). */
void mcpw_out(const char *s);
/* Appends s[0..n) as a quoted, escaped JSON string (invalid UTF-8 -> U+FFFD). */
void mcpw_out_json_string(const char *s, size_t n);
/* mcpw_out_json_string for a NUL-terminated string. */
void mcpw_out_json_cstr(const char *s);
/* Appends a JSON integer. */
void mcpw_out_int(int64_t v);
/* Appends data[0..n) as a quoted, standard, padded base64 JSON string (for "blob"). */
void mcpw_out_base64(const void *data, size_t n);
/* Read contents handed over as they are (ABI §6.3), with no escaping or
 * base64 in the guest: appends ,"rawText":N for s[0..n), which must be
 * valid UTF-8 (else it is sent escaped as ,"text":"..." with U+FFFD), or
 * ,"rawBlob":N for data[0..n). Write them where "text" or "blob" would go. */
void mcpw_out_text_content(const char *s, size_t n);
void mcpw_out_blob_content(const void *data, size_t n);
/* mcpw_out_text_content for text the provider has already found to be
 * valid UTF-8 (mcpw_utf8_valid), without checking it a second time. The
 * host checks it regardless and fails the call if it is not. */
void mcpw_out_valid_text_content(const char *s, size_t n);
/* Reports whether s[0..n) is valid UTF-8 (8 ASCII bytes per step). */
int mcpw_utf8_valid(const char *s, size_t n);
/* Appends printf-formatted raw text (see mcpw_buf_printf). Never pass
 * untrusted strings through %s here: they are not escaped. */
void mcpw_out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sends the output and returns MCPW_OK (or, if memory ran out while
 * building it, sends an "internal" error and returns MCPW_ERROR). */
int32_t mcpw_ok(void);
/* Discards the output, sends {"code":code,"message":message} and returns
 * MCPW_ERROR. code is one of MCPW_NOT_FOUND, MCPW_INVALID_PARAMS,
 * MCPW_INTERNAL; message may be NULL and is escaped, and cut (between
 * characters) to the 4096 bytes the ABI allows. */
int32_t mcpw_error(const char *code, const char *message);

/* ---- Logging and configuration ---- */

/* Formats a message (see mcpw_buf_printf) and logs it at level (MCPW_DEBUG,
 * MCPW_INFO, MCPW_WARN, MCPW_LOG_ERROR). The host truncates at 4 KiB. */
void mcpw_log(int32_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads the operator-granted configuration value for key into buf and
 * NUL-terminates it. Returns the value length n (copied only if n < cap),
 * or -1 if the key is not granted. If n >= cap nothing is copied: call again
 * with a buffer of at least n + 1 bytes. */
int32_t mcpw_config_get(const char *key, char *buf, size_t cap);

/* ---- Outbound HTTP (abi/ABI.md §4.4) ----
 *
 * A module that calls mcpw_http_fetch imports mcpw_v1.http_fetch, so it
 * loads only where the operator granted outbound HTTP; one that never calls
 * it does not import it. Declare the URL prefixes in describe's
 * "requests":{"http":[{"prefix":...}]}. */

typedef struct {
	const char *name;
	const char *value;
} mcpw_header;

typedef struct {
	const char *method;         /* "GET" (also when NULL), "HEAD" or "POST" */
	const char *url;            /* absolute http or https URL */
	const mcpw_header *headers; /* n_headers of them; the host refuses Host, Content-Length, ... */
	size_t n_headers;
	const char *body; /* POST only; body_len bytes */
	size_t body_len;
} mcpw_http_request;

typedef struct {
	int32_t status;      /* the HTTP status (any, 4xx and 5xx included) on MCPW_HTTP_OK */
	unsigned char *body; /* the body, NUL-terminated, body_len bytes */
	size_t body_len;
	char *error_code;    /* on refusal: "denied", "invalid", "too_large", "timeout", "network", "limit" */
	char *error_message; /* on refusal: the host's reason (or the SDK's) */
	char *raw;           /* the host's answer, for mcpw_http_header */
	size_t raw_len;
} mcpw_http_response;

/* Results of mcpw_http_fetch. */
#define MCPW_HTTP_OK 0      /* a response: status and body are set */
#define MCPW_HTTP_REFUSED 1 /* the host refused or failed: error_code and error_message are set */
#define MCPW_HTTP_FAILED -1 /* the SDK could not send or read it (memory, malformed answer); error_code is "invalid" */

/* Sends req through the host and fills *resp (which the caller then frees
 * with mcpw_http_response_free, whatever the result). */
int mcpw_http_fetch(const mcpw_http_request *req, mcpw_http_response *resp);
/* mcpw_http_fetch of a GET of url without headers. */
int mcpw_http_get(const char *url, mcpw_http_response *resp);
/* The value of response header name (lower case) in a malloc'd buffer, or NULL. */
char *mcpw_http_header(const mcpw_http_response *resp, const char *name);
/* Frees what mcpw_http_fetch allocated and zeroes *resp. */
void mcpw_http_response_free(mcpw_http_response *resp);

/* ---- A growable byte buffer ---- */

/* mcpw_buf is a growable byte buffer; start from MCPW_BUF_INIT. data is
 * always NUL-terminated once anything was appended. If an allocation fails,
 * failed is set and further appends are ignored. */
typedef struct {
	char *data;
	size_t len;
	size_t cap;
	int failed;
} mcpw_buf;

#define MCPW_BUF_INIT {0, 0, 0, 0}

void mcpw_buf_append(mcpw_buf *b, const void *p, size_t n);
/* Appends formatted text. The formatter is a small printf subset:
 * conversions %d %i %u %o %x %X %c %s %%, flags '-' and '0', a width (digits
 * or *), a precision for %s (.digits or .*), and length modifiers l, ll, z. */
void mcpw_buf_printf(mcpw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mcpw_buf_vprintf(mcpw_buf *b, const char *fmt, va_list ap);
/* Appends s[0..n) as a quoted, escaped JSON string (as mcpw_out_json_string). */
void mcpw_buf_json_string(mcpw_buf *b, const char *s, size_t n);
/* Frees the data and resets b to empty. */
void mcpw_buf_free(mcpw_buf *b);

#ifdef __cplusplus
}
#endif

#endif /* MCPW_H */
