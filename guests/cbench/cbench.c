/*
 * cbench: the benchmark provider as a C guest. Same resources as the Go
 * bench guest (guests/bench/benchprov): bench:///1k (1 KiB of text),
 * bench:///1m (1 MiB of text), and bench:///item/N for N < 100, listed in
 * one page. Used by runtime benchmarks to measure host overhead per call.
 */
#include <stdlib.h>
#include <string.h>

#include "mcpw.h"

#define ITEMS 100
#define LINE_LEN 16 /* "abcdefghijklmno\n" */

MCPW_EXPORT(describe) int32_t cb_describe(int32_t in_len) {
	free(mcpw_input(in_len, NULL));
	mcpw_out("{\"name\":\"cbench\",\"version\":\"1.0.0\",\"title\":\"Benchmark provider (C)\","
	         "\"uriSpace\":[{\"scheme\":\"bench\"}],\"operations\":[\"list\",\"read\"]}");
	return mcpw_ok();
}

MCPW_EXPORT(list) int32_t cb_list(int32_t in_len) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	char *cursor = in ? mcpw_json_string(in, n, "cursor", NULL) : NULL;
	free(in);
	if (cursor) {
		free(cursor);
		return mcpw_error(MCPW_INVALID_PARAMS, "bench has one page");
	}
	mcpw_out("{\"resources\":[");
	for (int i = 0; i < ITEMS; i++) {
		mcpw_out_printf("%s{\"uri\":\"bench:///item/%d\",\"name\":\"item %d\",\"mimeType\":\"text/plain\",\"size\":1024}",
		                i ? "," : "", i, i);
	}
	mcpw_out("]}");
	return mcpw_ok();
}

static void out_text(const char *uri, size_t lines) {
	mcpw_out("{\"contents\":[{\"uri\":");
	mcpw_out_json_cstr(uri);
	mcpw_out(",\"mimeType\":\"text/plain\",\"text\":\"");
	for (size_t i = 0; i < lines; i++) {
		mcpw_out_raw("abcdefghijklmno\\n", 17); /* one line, JSON-escaped */
	}
	mcpw_out("\"}]}");
}

MCPW_EXPORT(read) int32_t cb_read(int32_t in_len) {
	size_t n;
	char *in = mcpw_input(in_len, &n);
	char *uri = in ? mcpw_json_string(in, n, "uri", NULL) : NULL;
	free(in);
	if (!uri) {
		return mcpw_error(MCPW_INVALID_PARAMS, "missing uri");
	}
	int32_t rc;
	if (strcmp(uri, "bench:///1k") == 0 || strncmp(uri, "bench:///item/", 14) == 0) {
		out_text(uri, 1024 / LINE_LEN);
		rc = mcpw_ok();
	} else if (strcmp(uri, "bench:///1m") == 0) {
		out_text(uri, (1 << 20) / LINE_LEN);
		rc = mcpw_ok();
	} else {
		rc = mcpw_error(MCPW_NOT_FOUND, "no such bench resource");
	}
	free(uri);
	return rc;
}
