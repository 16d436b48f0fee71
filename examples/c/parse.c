/* parse.c: stream model output through the chatcodec C ABI in small chunks (splitting UTF-8
 * sequences and markers), printing each chunk's OpenAI deltas and the final message; then
 * show the error codes and messages of an unknown format and of a bad tools argument.
 *
 *   parse [FORMAT [CHUNK_BYTES]]   (default: hermes 5), output on stdin or a built-in sample
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chatcodec.h"

static const char *SAMPLE =
    "<think>The user wants the weather in Zürich.</think>Let me check. <tool_call>\n"
    "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\"}}\n</tool_call>";

static int report(const char *what, int status) {
    size_t len = 0;
    const char *msg = chatcodec_last_error(&len);
    printf("%s: status %d: %.*s\n", what, status, (int)len, msg);
    return status;
}

int main(int argc, char **argv) {
    const char *format = argc > 1 ? argv[1] : "hermes";
    size_t chunk = argc > 2 ? (size_t)atoi(argv[2]) : 5;
    if (chunk == 0) chunk = 1;
    const uint64_t seed = 42; /* reproducible call ids; pass NULL for fresh random ones */
    const char *tools =
        "[{\"type\": \"function\", \"function\": {\"name\": \"get_weather\", \"parameters\": {}}}]";

    chatcodec_parser *p = NULL;
    int st = chatcodec_parser_new(format, strlen(format), CHATCODEC_REASONING_AUTO, &seed, tools,
                                  strlen(tools), &p);
    if (st != CHATCODEC_OK) return report("parser", st);

    size_t n = strlen(SAMPLE);
    for (size_t i = 0; i < n; i += chunk) {
        size_t len = n - i < chunk ? n - i : chunk;
        char *out = NULL;
        size_t out_len = 0;
        st = chatcodec_parser_feed(p, SAMPLE + i, len, &out, &out_len);
        if (st != CHATCODEC_OK) return report("feed", st);
        if (out_len > 2) printf("deltas: %.*s\n", (int)out_len, out);
        chatcodec_string_free(out, out_len);
    }
    char *fin = NULL;
    size_t fin_len = 0;
    st = chatcodec_parser_finish(p, &fin, &fin_len);
    if (st != CHATCODEC_OK) return report("finish", st);
    printf("final: %.*s\n", (int)fin_len, fin);
    int has_call = strstr(fin, "\"name\":\"get_weather\"") != NULL;
    chatcodec_string_free(fin, fin_len);
    chatcodec_parser_free(p);
    if (!has_call) { fprintf(stderr, "no tool call parsed\n"); return 1; }

    /* Errors: an unknown format, a tools argument that is not JSON, feeding after finish. */
    chatcodec_parser *q = NULL;
    st = chatcodec_parser_new("nope", 4, CHATCODEC_REASONING_AUTO, NULL, NULL, 0, &q);
    report("unknown format", st);
    if (st != CHATCODEC_ERR_FORMAT || q != NULL) return 1;
    st = chatcodec_parser_new("hermes", 6, CHATCODEC_REASONING_AUTO, NULL, "[{", 2, &q);
    report("bad tools", st);
    if (st != CHATCODEC_ERR_INPUT) return 1;
    st = chatcodec_parser_new("hermes", 6, 7, NULL, NULL, 0, &q);
    report("bad reasoning mode", st);
    if (st != CHATCODEC_ERR_ARGUMENT) return 1;
    st = chatcodec_parser_new("hermes", 6, CHATCODEC_REASONING_AUTO, NULL, NULL, 0, &q);
    if (st != CHATCODEC_OK) return report("parser", st);
    char *o = NULL;
    size_t ol = 0;
    chatcodec_parser_finish(q, &o, &ol);
    chatcodec_string_free(o, ol);
    st = chatcodec_parser_feed(q, "x", 1, &o, &ol);
    report("feed after finish", st);
    if (st != CHATCODEC_ERR_ARGUMENT) return 1;
    chatcodec_parser_free(q);
    printf("parse: ok\n");
    return 0;
}
