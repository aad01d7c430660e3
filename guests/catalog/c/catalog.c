/* catalog.c - the catalog example provider in C: the same behaviour as the
 * Go, Rust and AssemblyScript versions beside it (see ../README.md),
 * checked by guests/catalog's cross-SDK test. */
#include <stdlib.h>
#include <string.h>

#include "mcpw.h"

#define ITEM_PREFIX "catalog:///items/"
#define TEMPLATE "catalog:///items/{id}"
#define PAGE_SIZE 3
#define CURSOR_WRAP 1000000000u

typedef struct {
	const char *id, *title, *description, *mime_type;
	const char *text; /* NULL for a blob */
	const unsigned char *blob;
	size_t blob_len;
	const char *annotations; /* raw JSON, or NULL */
} item;

static const unsigned char logo[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0xff, 0x00};

static char kib[1025]; /* "abcdefghijklmno\n" 64 times, filled on first use */

static item items[] = {
	{"apple", "Apple", "A crisp fruit.", "text/plain", "Apples are crisp.\n", NULL, 0,
	 "{\"audience\":[\"user\",\"assistant\"],\"priority\":0.5}"},
	{"apricot", "Apricot", "A soft fruit.", "text/markdown", "# Apricot\n\nSoft and *orange*.\n", NULL, 0, NULL},
	{"banana", "Banana \"the long one\"", "Text that every JSON encoder must escape.", "text/plain",
	 "Quote \" backslash \\ slash / tab\t newline\n return\r control \x01\x1f delete \x7f unicode \xc3\xbcn\xc3\xaf "
	 "\xe2\x82\xac \xf0\x9f\x98\x80 <&> \xe2\x80\xa8\n",
	 NULL, 0, NULL},
	{"blueberry", "Blueberry", "A small berry.", "application/json", "{\"berry\":true,\"size\":\"small\"}", NULL, 0, NULL},
	{"cherry", "Cherry", "An empty text.", "text/plain", "", NULL, 0, NULL},
	{"kib", "One KiB", "1024 bytes of text.", "text/plain", kib, NULL, 0, NULL},
	{"logo", "Logo", "A binary blob.", "image/png", NULL, logo, sizeof logo,
	 "{\"audience\":[\"user\"],\"priority\":0,\"lastModified\":\"2024-01-02T03:04:05Z\"}"},
};

#define N_ITEMS (sizeof items / sizeof items[0])

static void init_kib(void) {
	if (kib[0])
		return;
	for (int i = 0; i < 64; i++)
		memcpy(kib + 16 * i, "abcdefghijklmno\n", 16);
}

static size_t item_size(const item *it) { return it->text ? strlen(it->text) : it->blob_len; }

/* parse_cursor reads a cursor: the decimal index of the next item or
 * generation, digits only, no leading zero, at most 9 of them. */
static int parse_cursor(const char *c, uint32_t *out) {
	size_t n = strlen(c);
	uint32_t v = 0;
	if (n == 0 || n > 9 || (n > 1 && c[0] == '0'))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i] < '0' || c[i] > '9')
			return 0;
		v = v * 10 + (uint32_t)(c[i] - '0');
	}
	*out = v;
	return 1;
}

/* member returns the string member at path (NULL when absent). A JSON
 * string may hold an escaped NUL ("1\u0000"), which C string functions would
 * silently cut at; *nul is set when it does, and the caller refuses it. */
static char *member(const char *in, size_t n, const char *path, int *nul) {
	size_t len = 0;
	char *v = mcpw_json_string(in, n, path, &len);
	if (v && strlen(v) != len)
		*nul = 1;
	return v;
}

/* input_member reads the call's input and returns the string member at
 * path (NULL when absent) in *value; returns 0 if the input could not be
 * read, -1 if the value holds a NUL. */
static int input_member(int32_t in_len, const char *path, char **value) {
	size_t n;
	int nul = 0;
	char *in = mcpw_input(in_len, &n);
	if (!in)
		return 0;
	*value = member(in, n, path, &nul);
	free(in);
	return nul ? -1 : 1;
}

static int32_t bad_cursor(const char *cursor) {
	mcpw_buf b = MCPW_BUF_INIT;
	mcpw_buf_printf(&b, "bad cursor \"%s\"", cursor);
	int32_t rc = mcpw_error(MCPW_INVALID_PARAMS, b.data);
	mcpw_buf_free(&b);
	return rc;
}

MCPW_EXPORT(describe) int32_t catalog_describe(int32_t in_len) {
	free(mcpw_input(in_len, NULL));
	mcpw_out("{\"name\":\"catalog\",\"version\":\"1.0.0\",\"title\":\"Catalog\","
	         "\"description\":\"An in-memory catalog: the same provider in every mcp-wasm SDK.\","
	         "\"uriSpace\":[{\"scheme\":\"catalog\"}],"
	         "\"operations\":[\"list\",\"templates\",\"read\",\"complete\",\"changes\"],"
	         "\"cache\":{\"ttlMs\":60000,\"scope\":\"public\"}}");
	return mcpw_ok();
}

MCPW_EXPORT(list) int32_t catalog_list(int32_t in_len) {
	char *cursor = NULL;
	uint32_t start = 0;
	init_kib();
	int got = input_member(in_len, "cursor", &cursor);
	if (!got)
		return mcpw_error(MCPW_INTERNAL, "out of memory");
	if (cursor && (got < 0 || !parse_cursor(cursor, &start) || start == 0 || start >= N_ITEMS)) {
		int32_t rc = bad_cursor(cursor);
		free(cursor);
		return rc;
	}
	free(cursor);
	size_t end = start + PAGE_SIZE < N_ITEMS ? start + PAGE_SIZE : N_ITEMS;
	mcpw_out("{\"resources\":[");
	for (size_t i = start; i < end; i++) {
		const item *it = &items[i];
		mcpw_out(i > start ? ",{\"uri\":\"" ITEM_PREFIX : "{\"uri\":\"" ITEM_PREFIX);
		mcpw_out(it->id); /* ids are plain ASCII */
		mcpw_out("\",\"name\":");
		mcpw_out_json_cstr(it->id);
		mcpw_out(",\"title\":");
		mcpw_out_json_cstr(it->title);
		mcpw_out(",\"description\":");
		mcpw_out_json_cstr(it->description);
		mcpw_out(",\"mimeType\":");
		mcpw_out_json_cstr(it->mime_type);
		mcpw_out(",\"size\":");
		mcpw_out_int((int64_t)item_size(it));
		if (it->annotations) {
			mcpw_out(",\"annotations\":");
			mcpw_out(it->annotations);
		}
		mcpw_out("}");
	}
	mcpw_out("]");
	if (end < N_ITEMS)
		mcpw_out_printf(",\"nextCursor\":\"%zu\"", end);
	mcpw_out("}");
	return mcpw_ok();
}

MCPW_EXPORT(templates) int32_t catalog_templates(int32_t in_len) {
	char *cursor = NULL;
	if (!input_member(in_len, "cursor", &cursor))
		return mcpw_error(MCPW_INTERNAL, "out of memory");
	if (cursor) { /* with or without a NUL: there is one page */
		int32_t rc = bad_cursor(cursor);
		free(cursor);
		return rc;
	}
	mcpw_out("{\"resourceTemplates\":[{\"uriTemplate\":\"" TEMPLATE "\",\"name\":\"item\","
	         "\"title\":\"Catalog item\",\"description\":\"One item of the catalog, by id.\"}]}");
	return mcpw_ok();
}

MCPW_EXPORT(read) int32_t catalog_read(int32_t in_len) {
	char *uri = NULL;
	init_kib();
	int got = input_member(in_len, "uri", &uri);
	if (!got)
		return mcpw_error(MCPW_INTERNAL, "out of memory");
	if (!uri)
		return mcpw_error(MCPW_INVALID_PARAMS, "read request without a uri");
	const item *it = NULL;
	if (got > 0 && strncmp(uri, ITEM_PREFIX, strlen(ITEM_PREFIX)) == 0)
		for (size_t i = 0; i < N_ITEMS && !it; i++)
			if (strcmp(uri + strlen(ITEM_PREFIX), items[i].id) == 0)
				it = &items[i];
	if (!it) {
		mcpw_buf b = MCPW_BUF_INIT;
		mcpw_buf_printf(&b, "no item \"%s\"", uri);
		free(uri);
		int32_t rc = mcpw_error(MCPW_NOT_FOUND, b.data);
		mcpw_buf_free(&b);
		return rc;
	}
	mcpw_out("{\"contents\":[{\"uri\":");
	mcpw_out_json_cstr(uri);
	mcpw_out(",\"mimeType\":");
	mcpw_out_json_cstr(it->mime_type);
	if (it->text)
		mcpw_out_text_content(it->text, strlen(it->text));
	else
		mcpw_out_blob_content(it->blob, it->blob_len);
	mcpw_out("}]}");
	free(uri);
	return mcpw_ok();
}

MCPW_EXPORT(complete) int32_t catalog_complete(int32_t in_len) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	if (!in)
		return mcpw_error(MCPW_INTERNAL, "out of memory");
	int nul = 0, value_nul = 0;
	char *tpl = member(in, n, "template", &nul);
	char *name = member(in, n, "argument.name", &nul);
	char *value = member(in, n, "argument.value", &value_nul);
	free(in);
	int32_t rc;
	if (nul || !tpl || !name || strcmp(tpl, TEMPLATE) != 0 || strcmp(name, "id") != 0) {
		mcpw_buf b = MCPW_BUF_INIT;
		mcpw_buf_printf(&b, "cannot complete \"%s\" of \"%s\": the catalog completes id of " TEMPLATE, name ? name : "", tpl ? tpl : "");
		rc = mcpw_error(MCPW_INVALID_PARAMS, b.data);
		mcpw_buf_free(&b);
	} else {
		const char *prefix = value ? value : "";
		int total = 0;
		mcpw_out("{\"values\":[");
		for (size_t i = 0; i < N_ITEMS && !value_nul; i++) { /* no id holds a NUL */
			if (strncmp(items[i].id, prefix, strlen(prefix)) != 0)
				continue;
			mcpw_out(total++ ? "," : "");
			mcpw_out_json_cstr(items[i].id);
		}
		mcpw_out_printf("],\"total\":%d}", total);
		rc = mcpw_ok();
	}
	free(tpl);
	free(name);
	free(value);
	return rc;
}

/* changes reports a deterministic change sequence: the first call is the
 * baseline (cursor "0", no changes); the call with cursor n reports item
 * n mod 7 updated, and a list change when n mod 3 is 2. */
MCPW_EXPORT(changes) int32_t catalog_changes(int32_t in_len) {
	char *cursor = NULL;
	uint32_t n;
	int got = input_member(in_len, "cursor", &cursor);
	if (!got)
		return mcpw_error(MCPW_INTERNAL, "out of memory");
	if (!cursor) {
		mcpw_out("{\"cursor\":\"0\"}");
		return mcpw_ok();
	}
	if (got < 0 || !parse_cursor(cursor, &n)) {
		int32_t rc = bad_cursor(cursor);
		free(cursor);
		return rc;
	}
	free(cursor);
	mcpw_out_printf("{\"cursor\":\"%u\",\"updated\":[\"" ITEM_PREFIX "%s\"]", (n + 1) % CURSOR_WRAP, items[n % N_ITEMS].id);
	if (n % 3 == 2)
		mcpw_out(",\"listChanged\":true");
	mcpw_out("}");
	return mcpw_ok();
}
