/* render.c: render a chat request with a chat template through the chatcodec C ABI, then show
 * the error codes and messages of a template that does not compile and of a bad request.
 *
 *   render [TEMPLATE_FILE]   (default: a small ChatML template)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chatcodec.h"

static const char *CHATML =
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

static const char *REQUEST =
    "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"},"
    " {\"role\": \"user\", \"content\": \"Bonjour, ça va ?\"}],"
    " \"add_generation_prompt\": true}";

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    if (buf) { buf[n] = 0; *len = (size_t)n; }
    return buf;
}

/* Prints a failed call's status and message; returns the status. */
static int report(const char *what, int status) {
    size_t len = 0;
    const char *msg = chatcodec_last_error(&len);
    printf("%s: status %d: %.*s\n", what, status, (int)len, msg);
    return status;
}

int main(int argc, char **argv) {
    size_t src_len = strlen(CHATML);
    char *src = NULL;
    if (argc > 1) {
        src = read_file(argv[1], &src_len);
        if (!src) { fprintf(stderr, "cannot read %s\n", argv[1]); return 2; }
    }
    const char *tokens = "{\"bos_token\": \"<s>\", \"eos_token\": \"</s>\"}";
    chatcodec_template *tpl = NULL;
    int st = chatcodec_template_new(src ? src : CHATML, src_len, tokens, strlen(tokens), &tpl);
    if (st != CHATCODEC_OK) return report("compile", st);

    char *out = NULL;
    size_t out_len = 0;
    st = chatcodec_template_apply(tpl, REQUEST, strlen(REQUEST), &out, &out_len);
    if (st != CHATCODEC_OK) return report("apply", st);
    printf("chatcodec %s, prompt of %zu bytes:\n%.*s\n---\n", chatcodec_version(), out_len,
           (int)out_len, out);
    chatcodec_string_free(out, out_len);

    /* A template that does not compile. */
    const char *bad = "{% for m in messages %}{{ m.content }";
    chatcodec_template *broken = NULL;
    st = chatcodec_template_new(bad, strlen(bad), NULL, 0, &broken);
    report("bad template", st);
    if (st != CHATCODEC_ERR_SYNTAX || broken != NULL) return 1;

    /* A request that is not JSON, and one whose messages are not a list. */
    const char *not_json = "{\"messages\": [";
    st = chatcodec_template_apply(tpl, not_json, strlen(not_json), &out, &out_len);
    report("bad request (not JSON)", st);
    if (st != CHATCODEC_ERR_INPUT) return 1;
    const char *no_list = "{\"messages\": \"hi\"}";
    st = chatcodec_template_apply(tpl, no_list, strlen(no_list), &out, &out_len);
    report("bad request (messages not a list)", st);
    if (st != CHATCODEC_ERR_INPUT) return 1;

    /* A template that raises while rendering. */
    const char *raises = "{{ raise_exception('only user messages, please') }}";
    chatcodec_template *strict = NULL;
    st = chatcodec_template_new(raises, strlen(raises), NULL, 0, &strict);
    if (st != CHATCODEC_OK) return report("compile", st);
    st = chatcodec_template_apply(strict, REQUEST, strlen(REQUEST), &out, &out_len);
    report("template raised", st);
    if (st != CHATCODEC_ERR_RENDER) return 1;

    chatcodec_template_free(strict);
    chatcodec_template_free(tpl);
    free(src);
    printf("render: ok\n");
    return 0;
}
