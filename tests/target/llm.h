/*
 * volley-target, the OpenAI-compatible endpoints (llm.c) and the reader of
 * their request bodies (llm_json.c): what the two share. The rest of the
 * server sees only the llm_* functions declared in vtarget.h.
 */
#ifndef VTARGET_LLM_H
#define VTARGET_LLM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LLM_MODEL_MAX 256    /* longest "model" echoed (raw JSON string text) */
#define LLM_ID_MAX    64     /* a request id is cut to this many bytes in the truth log */
#define LLM_ERR_MAX   160
#define TOKENS_MAX    10000000ULL          /* largest max_tokens / --llm-tokens */
#define MS_MAX        3600000.0            /* largest time field, in ms */
#define EVENT_MAX     (16ULL * 1024 * 1024) /* largest --llm-event-bytes */

enum llm_framing { FR_UNSET = -1, FR_CHUNKED, FR_LENGTH, FR_CLOSE };

/* What a request body asks for. Unset numbers are NAN, unset booleans -1
 * (a field given in the body wins over the server's --llm-* flag). */
struct llm_req {
    double max_tokens, first_ms, gap_ms, stall_at, stall_ms, error_at, cut_at;
    double status, prompt_tokens, event_bytes;
    int stream, include_usage, nodone, silent, huge, comments_only, bad_json;
    enum llm_framing framing;
    char model[LLM_MODEL_MAX]; /* raw text between the quotes (escapes kept) */
    size_t model_len;
    bool has_model;
    char user[LLM_ID_MAX + 1]; /* the "user" string, made log-safe; "" if none */
    unsigned long long words;  /* whitespace-separated words of prompt / messages */
    char err[LLM_ERR_MAX];     /* why the body was refused */
};

/* The server's defaults for the request fields (--llm-* flags; llm_conf.c). */
struct llm_conf {
    unsigned long long tokens, stall_at, event_bytes;
    int usage;                 /* -1: as the request asks, 0 off, 1 on */
    double first_ms, gap_ms, stall_ms, stall_all_at_ms, stall_all_ms;   /* at: -1 none */
    enum llm_framing framing;
    bool huge;
    const char *log_file;
};
extern struct llm_conf llm_conf;
extern FILE *llm_truth;        /* --llm-log, or NULL */
extern bool llm_exiting;       /* set by llm_shutdown: streams still going end by "shutdown" */

/* One truth log line, "TAG ID [K] T [TAIL] [BYTES]": K is the string k, or
 * (k NULL, tag 'e') the number ki; tail and bytes only if given. Nothing
 * without --llm-log. */
void llm_log_line(char tag, const char *id, const char *k, unsigned long long ki,
                  uint64_t t, const char *tail, uint64_t bytes, bool has_bytes);
/* --llm-stall-all-at-ms T --llm-stall-all-ms S: nothing falls due in the
 * window [start+T, start+T+S) after the server started; a due time inside
 * it is moved to its end. Other times are returned as they are. */
uint64_t llm_stall_all(uint64_t due);

/* Read a request body (n bytes at p, not NUL-terminated) into *r. Returns 0,
 * or -1 with r->err set when the body is not a JSON object or a known field
 * has the wrong type. Words are counted in every string under "prompt" and
 * "messages" that is a "prompt" itself, an element of its array, or the
 * value of a "content" or "text" key (so a message's role is not counted). */
int llm_json_parse(const char *p, size_t n, struct llm_req *r);

#endif
