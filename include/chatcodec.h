/*
 * chatcodec.h: the C ABI of chatcodec (libchatcodec_c.a / libchatcodec_c.so).
 *
 * Encode: a chat request (JSON) and a model's chat template become the exact prompt of
 * Hugging Face transformers' apply_chat_template. Decode: model output, fed chunk by chunk,
 * becomes OpenAI-style deltas and a final message.
 *
 * Conventions (docs/c-api.md):
 *  - Strings in are UTF-8 pointer + length; no NUL terminator is needed. A null pointer is
 *    allowed where the length is 0 and the argument is optional.
 *  - Every function that can fail returns a chatcodec_status; on failure
 *    chatcodec_last_error() gives the message (per thread, valid until the next call).
 *  - Strings out are allocated by the library (NUL-terminated, length returned separately);
 *    free each with chatcodec_string_free(ptr, len).
 *  - Handles are opaque; free them with their _free function. A template may be used from
 *    many threads at once; a parser by one thread at a time.
 *
 * This header is checked against the Rust definitions by capi/tests/header.rs.
 */
#ifndef CHATCODEC_H
#define CHATCODEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum chatcodec_status {
    CHATCODEC_OK = 0,
    CHATCODEC_ERR_ARGUMENT = 1, /* a null pointer, invalid UTF-8, an unknown option value */
    CHATCODEC_ERR_SYNTAX = 2,   /* the template does not compile */
    CHATCODEC_ERR_RENDER = 3,   /* the template failed while rendering */
    CHATCODEC_ERR_INPUT = 4,    /* the request or a JSON argument is malformed */
    CHATCODEC_ERR_LOAD = 5,     /* a model folder or GGUF file could not be read */
    CHATCODEC_ERR_FORMAT = 6,   /* an unknown output format name */
    CHATCODEC_ERR_INTERNAL = 99 /* a bug in chatcodec (caught, never crosses the ABI) */
} chatcodec_status;

/* Reasoning modes of chatcodec_parser_new. */
#define CHATCODEC_REASONING_AUTO 0
#define CHATCODEC_REASONING_OPEN 1   /* the prompt opened the reasoning block */
#define CHATCODEC_REASONING_CLOSED 2 /* thinking is off: the output has no reasoning */

typedef struct chatcodec_template chatcodec_template;
typedef struct chatcodec_parser chatcodec_parser;

/* The message of the last failed call on this thread (empty after a success), NUL-terminated;
 * its length in *len when len is not null. Owned by the library. */
const char *chatcodec_last_error(size_t *len);

/* The library version, a static NUL-terminated string. */
const char *chatcodec_version(void);

/* Compiles a chat template. special_tokens_json (optional) is a JSON object of template
 * kwargs, e.g. {"bos_token": "<s>", "eos_token": "</s>"}. */
int chatcodec_template_new(const char *source, size_t source_len,
                           const char *special_tokens_json, size_t special_tokens_len,
                           chatcodec_template **out);

/* Loads the default chat template and special tokens of a Hugging Face model folder or a
 * GGUF file. */
int chatcodec_template_load(const char *path, size_t path_len, chatcodec_template **out);

/* Renders a chat request, a JSON object {"messages": [...], "tools": [...],
 * "add_generation_prompt": true, ...} (other keys are template kwargs), as
 * apply_chat_template(..., tokenize=False) does. *out receives the prompt. */
int chatcodec_template_apply(const chatcodec_template *tpl, const char *request,
                             size_t request_len, char **out, size_t *out_len);

/* Frees a template (null is allowed). */
void chatcodec_template_free(chatcodec_template *tpl);

/* Frees a string returned by the library, with the length it came with (null is allowed). */
void chatcodec_string_free(char *ptr, size_t len);

/* Makes a stream parser for an output format (a `chatcodec parse --list-formats` name).
 * reasoning: CHATCODEC_REASONING_*. id_seed: null for fresh random tool call ids, else the
 * seed of reproducible ones. tools_json (optional): the request's OpenAI tools array; calls
 * to other names stay content. */
int chatcodec_parser_new(const char *format, size_t format_len, int reasoning,
                         const uint64_t *id_seed, const char *tools_json, size_t tools_len,
                         chatcodec_parser **out);

/* Feeds model output (chunks may split UTF-8 sequences and markers). *out receives the
 * OpenAI deltas this chunk completes, as a JSON array. */
int chatcodec_parser_feed(chatcodec_parser *parser, const char *text, size_t len, char **out,
                          size_t *out_len);

/* Ends the stream. *out receives {"deltas": [...], "message": {...}}: the last deltas and
 * the final OpenAI assistant message (content, reasoning_content, tool_calls). */
int chatcodec_parser_finish(chatcodec_parser *parser, char **out, size_t *out_len);

/* Frees a parser (null is allowed). */
void chatcodec_parser_free(chatcodec_parser *parser);

#ifdef __cplusplus
}
#endif

#endif /* CHATCODEC_H */
