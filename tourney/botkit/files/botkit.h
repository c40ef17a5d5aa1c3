/* botkit.h: a small helper for writing a tourney bot in C (C99 and POSIX, no libraries).
 *
 *     #include "botkit.h"            (include it first: it asks for POSIX's getline)
 *
 *     static int choose(const json *view, const char **options, int count) {
 *         return 0;                  (the index of the option to answer: any one is legal)
 *     }
 *     int main(void) { return botkit_run(choose, "my_bot"); }
 *
 * botkit_run() speaks the tourney bot protocol 1.0 (docs/protocol.md) on stdin and stdout: it
 * answers the referee's hello, keeps the game_start message, calls choose() for every request
 * (view: what your seat may know; options: the offered option ids, such as "play:17" or "end")
 * and writes the answer, flushed, then returns 0 on goodbye or at the end of stdin.
 *
 * What else a bot knows is in `botkit_game`: seat, players, the rule set, the decision's kind,
 * and the whole game_start and request messages (botkit_card(id) looks a card up in the card
 * table). botkit_random(n) is a number in 0..n-1 from a generator seeded by the referee's hello.
 * Print logs to stderr (fprintf(stderr, ...)), never to stdout.
 *
 * The JSON reader below reads the whole of JSON (RFC 8259): objects, arrays, strings with every
 * escape (\uXXXX and surrogate pairs become UTF-8), numbers, true, false, null. A line it cannot
 * read is reported on stderr and skipped. Nesting deeper than BOTKIT_MAX_DEPTH is refused.
 */
#ifndef BOTKIT_H
#define BOTKIT_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOTKIT_MAX_DEPTH 256

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json json;
struct json {
    json_type type;
    double number;  /* a number; a bool: 1 or 0 */
    char *string;   /* a string (UTF-8, NUL-terminated) */
    char *key;      /* an object member's key */
    json *child;    /* an array's first element, an object's first member */
    json *next;     /* the next element or member */
    int length;     /* elements or members */
};

/* -- reading JSON ---------------------------------------------------------------------------- */

typedef struct { const char *p; int depth; } botkit_reader;

static json *botkit_value(botkit_reader *r);

static void json_free(json *v) {
    while (v) {
        json *next = v->next;
        json_free(v->child);
        free(v->string);
        free(v->key);
        free(v);
        v = next;
    }
}

static void botkit_space(botkit_reader *r) {
    while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r') r->p++;
}

static int botkit_hex4(const char *s, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static char *botkit_string(botkit_reader *r) {
    /* r->p is at the opening quote; the decoded text is never longer than the source */
    const char *s = ++r->p;
    const char *end = s;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    if (*end != '"') return NULL;
    char *out = malloc((size_t)(end - s) + 1);
    char *o = out;
    if (!out) return NULL;
    while (s < end) {
        unsigned char c = (unsigned char)*s++;
        if (c < 0x20) { free(out); return NULL; }
        if (c != '\\') { *o++ = (char)c; continue; }
        c = (unsigned char)*s++;
        switch (c) {
            case '"': *o++ = '"'; break;
            case '\\': *o++ = '\\'; break;
            case '/': *o++ = '/'; break;
            case 'b': *o++ = '\b'; break;
            case 'f': *o++ = '\f'; break;
            case 'n': *o++ = '\n'; break;
            case 'r': *o++ = '\r'; break;
            case 't': *o++ = '\t'; break;
            case 'u': {
                unsigned u, low;
                if (end - s < 4 || !botkit_hex4(s, &u)) { free(out); return NULL; }
                s += 4;
                if (u >= 0xD800 && u < 0xDC00 && end - s >= 6 && s[0] == '\\' && s[1] == 'u'
                    && botkit_hex4(s + 2, &low) && low >= 0xDC00 && low < 0xE000) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
                    s += 6;
                }
                if (u < 0x80) *o++ = (char)u;
                else if (u < 0x800) { *o++ = (char)(0xC0 | (u >> 6)); *o++ = (char)(0x80 | (u & 0x3F)); }
                else if (u < 0x10000) {
                    *o++ = (char)(0xE0 | (u >> 12)); *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
                    *o++ = (char)(0x80 | (u & 0x3F));
                } else {
                    *o++ = (char)(0xF0 | (u >> 18)); *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
                    *o++ = (char)(0x80 | ((u >> 6) & 0x3F)); *o++ = (char)(0x80 | (u & 0x3F));
                }
                break;
            }
            default: free(out); return NULL;
        }
    }
    *o = '\0';
    r->p = end + 1;
    return out;
}

static json *botkit_new(json_type type) {
    json *v = calloc(1, sizeof(json));
    if (v) v->type = type;
    return v;
}

static json *botkit_items(botkit_reader *r, json *v, char close, int keyed) {
    /* r->p is just after '[' or '{' */
    json **tail = &v->child;
    botkit_space(r);
    if (*r->p == close) { r->p++; return v; }
    for (;;) {
        char *key = NULL;
        botkit_space(r);
        if (keyed) {
            if (*r->p != '"' || !(key = botkit_string(r))) { json_free(v); return NULL; }
            botkit_space(r);
            if (*r->p != ':') { free(key); json_free(v); return NULL; }
            r->p++;
        }
        json *item = botkit_value(r);
        if (!item) { free(key); json_free(v); return NULL; }
        item->key = key;
        *tail = item;
        tail = &item->next;
        v->length++;
        botkit_space(r);
        if (*r->p == ',') { r->p++; continue; }
        if (*r->p == close) { r->p++; return v; }
        json_free(v);
        return NULL;
    }
}

static json *botkit_value(botkit_reader *r) {
    json *v = NULL;
    botkit_space(r);
    if (++r->depth > BOTKIT_MAX_DEPTH) return NULL;
    char c = *r->p;
    if (c == '{' || c == '[') {
        r->p++;
        v = botkit_new(c == '{' ? JSON_OBJECT : JSON_ARRAY);
        if (v) v = botkit_items(r, v, c == '{' ? '}' : ']', c == '{');
    } else if (c == '"') {
        char *s = botkit_string(r);
        if (s && (v = botkit_new(JSON_STRING))) v->string = s;
        else free(s);
    } else if (strncmp(r->p, "true", 4) == 0 || strncmp(r->p, "false", 5) == 0) {
        if ((v = botkit_new(JSON_BOOL))) v->number = (c == 't');
        r->p += (c == 't') ? 4 : 5;
    } else if (strncmp(r->p, "null", 4) == 0) {
        v = botkit_new(JSON_NULL);
        r->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end;
        double d = strtod(r->p, &end);
        if (end != r->p && (v = botkit_new(JSON_NUMBER))) { v->number = d; r->p = end; }
    }
    r->depth--;
    return v;
}

/* The value of a whole JSON text, or NULL if it is not valid; free it with json_free(). */
static inline json *json_parse(const char *text) {
    botkit_reader r = {text, 0};
    json *v = botkit_value(&r);
    botkit_space(&r);
    if (v && *r.p != '\0') { json_free(v); return NULL; }
    return v;
}

/* An object's member (NULL if missing, or if `object` is not an object). */
static inline const json *json_get(const json *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (const json *m = object->child; m; m = m->next)
        if (strcmp(m->key, key) == 0) return m;
    return NULL;
}

/* An array's element (NULL if out of range, or if `array` is not an array). */
static inline const json *json_at(const json *array, int index) {
    if (!array || array->type != JSON_ARRAY || index < 0) return NULL;
    const json *e = array->child;
    while (e && index-- > 0) e = e->next;
    return e;
}

static inline int json_length(const json *v) {
    return v && (v->type == JSON_ARRAY || v->type == JSON_OBJECT) ? v->length : 0;
}

static inline double json_number(const json *v, double fallback) {
    return v && (v->type == JSON_NUMBER || v->type == JSON_BOOL) ? v->number : fallback;
}

static inline const char *json_string(const json *v, const char *fallback) {
    return v && v->type == JSON_STRING ? v->string : fallback;
}

/* -- the protocol ---------------------------------------------------------------------------- */

typedef struct {
    int seat, players;
    const char *rule_set;   /* of the current game */
    const char *kind;       /* of the request being answered ("main", "turn", "colour", ...) */
    const json *start;      /* the game_start message */
    const json *request;    /* the request being answered */
} botkit_state;

static botkit_state botkit_game;
static json *botkit_start_message;
static unsigned long long botkit_seed = 0x9E3779B97F4A7C15ULL;

/* A number in 0..n-1 (n > 0), from a generator seeded by the referee's hello (xorshift64*). */
static inline int botkit_random(int n) {
    botkit_seed ^= botkit_seed >> 12;
    botkit_seed ^= botkit_seed << 25;
    botkit_seed ^= botkit_seed >> 27;
    return (int)(((botkit_seed * 0x2545F4914F6CDD1DULL) >> 33) % (unsigned long long)n);
}

/* The card table's entry of card `id`: {"name", "rank", "suits", "type"} (NULL if unknown). */
static inline const json *botkit_card(int id) {
    char key[24];
    snprintf(key, sizeof key, "%d", id);
    return json_get(json_get(botkit_game.start, "cards"), key);
}

static void botkit_put_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

typedef int (*botkit_choose)(const json *view, const char **options, int count);

/* Play the protocol until goodbye or the end of stdin; returns the process's exit status. */
static inline int botkit_run(botkit_choose choose, const char *name) {
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) != -1) {
        json *message = json_parse(line);
        if (!message) {
            if (strspn(line, " \t\r\n") != strlen(line))
                fprintf(stderr, "%s: skipped a line that is not JSON\n", name);
            continue;
        }
        const char *type = json_string(json_get(message, "type"), "");
        if (strcmp(type, "hello") == 0) {
            unsigned long long seed = (unsigned long long)json_number(json_get(message, "seed"), 0);
            botkit_seed = (seed + 1) * 0x9E3779B97F4A7C15ULL;
            /* protocol 1.2: one process may play games of many series (reuse) */
            printf("{\"type\":\"hello\",\"protocol\":\"tourney-bot\",\"version\":\"1.2\",\"name\":");
            botkit_put_string(name);
            printf(strstr(line, "\"reuse\"") ? ",\"features\":[\"reuse\"]}\n" : "}\n");
            fflush(stdout);
        } else if (strcmp(type, "game_start") == 0) {
            json_free(botkit_start_message);
            botkit_start_message = message;  /* kept for the game: the card table */
            botkit_game.start = message;
            botkit_game.seat = (int)json_number(json_get(message, "seat"), 0);
            botkit_game.players = (int)json_number(json_get(message, "players"), 0);
            botkit_game.rule_set = json_string(json_get(message, "rule_set"), "");
            if (json_get(message, "seed")) {  /* the game's own seed: a warm process plays as a fresh one */
                unsigned long long seed = (unsigned long long)json_number(json_get(message, "seed"), 0);
                botkit_seed = (seed + 1) * 0x9E3779B97F4A7C15ULL;
            }
            continue;
        } else if (strcmp(type, "request") == 0) {
            const json *offered = json_get(message, "options");
            int count = json_length(offered);
            const char **options = calloc((size_t)(count ? count : 1), sizeof(char *));
            for (int i = 0; i < count; i++)
                options[i] = json_string(json_get(json_at(offered, i), "id"), "");
            botkit_game.kind = json_string(json_get(message, "kind"), "");
            botkit_game.request = message;
            int pick = count ? choose(json_get(message, "view"), options, count) : 0;
            if (pick < 0 || pick >= count) {
                fprintf(stderr, "%s: choose returned %d, not an option's index; answering 0\n", name, pick);
                pick = 0;
            }
            printf("{\"type\":\"answer\",\"id\":%.0f,\"option\":", json_number(json_get(message, "id"), 0));
            botkit_put_string(count ? options[pick] : "");
            printf("}\n");
            fflush(stdout);
            botkit_game.request = NULL;
            free(options);
        } else if (strcmp(type, "goodbye") == 0) {
            json_free(message);
            break;
        }
        json_free(message);
    }
    free(line);
    json_free(botkit_start_message);
    botkit_start_message = NULL;
    return 0;
}

#endif
