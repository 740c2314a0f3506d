/* Command-line and JSON helpers shared by the example programs. */
#include "example_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
