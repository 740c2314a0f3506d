/* Command-line and JSON helpers shared by the example programs. */
#include "example_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* How `name` (length n) appears in `usage`: 0 not listed, 1 a flag "[--name]",
 * 2 an option "[--name VALUE]". */
static int usage_kind(const char *usage, const char *name, size_t n) {
    for (const char *at = strstr(usage, "[--"); at != NULL; at = strstr(at + 1, "[--")) {
        const char *word = at + 1;
        size_t len = strcspn(word, " ]|");
        if (len == n && strncmp(word, name, n) == 0) {
            return word[len] == ']' ? 1 : 2;
        }
    }
    return 0;
}

void cli_check(int argc, char **argv, const char *usage) {
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("%s\n", usage);
            exit(0);
        }
        int kind = strncmp(a, "--", 2) == 0 ? usage_kind(usage, a, strlen(a)) : 0;
        if (kind == 0 || (kind == 2 && i + 1 >= argc)) {
            fprintf(stderr, kind ? "%s needs a value\n%s\n" : "unknown argument: %s\n%s\n", a,
                    usage);
            exit(2);
        }
        i += kind == 2; /* skip the value */
    }
}

bool cli_has_flag(int argc, char **argv, const char *flag) {
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], flag) == 0) {
            return true;
        }
    }
    return false;
}

const char *cli_string(int argc, char **argv, const char *name, const char *fallback) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (strcmp(argv[i], name) == 0) {
            return argv[i + 1];
        }
    }
    return fallback;
}

double cli_double(int argc, char **argv, const char *name, double fallback) {
    const char *text = cli_string(argc, argv, name, NULL);
    if (text == NULL) {
        return fallback;
    }
    char *end = NULL;
    double value = strtod(text, &end);
    if (end == text || *end != '\0') {
        fprintf(stderr, "%s: not a number: %s\n", name, text);
        exit(2);
    }
    return value;
}

void json_number(FILE *out, double x) {
    if (isfinite(x)) {
        fprintf(out, "%.17g", x);
    } else {
        fputs("null", out);
    }
}

void json_field(FILE *out, const char *key, double x) {
    fprintf(out, ",\"%s\":", key);
    json_number(out, x);
}

void json_array(FILE *out, const double *x, int n) {
    fputc('[', out);
    for (int i = 0; i < n; ++i) {
        if (i > 0) {
            fputc(',', out);
        }
        json_number(out, x[i]);
    }
    fputc(']', out);
}
