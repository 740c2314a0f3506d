/* Reads FCLIB files with nscd_fclib_read and tells what it cost: one JSON
 * line per file with the status, the HDF5 objects still open afterwards
 * (every identifier of every file: a leak when > 0), and at the end the
 * process's peak resident memory. Used by damage_fclib.py (10,000 damaged
 * copies of real files, docs/hostile_input.md).
 *
 * usage: read_damaged FILE...
 * A file that nscd_fclib_read refuses as unsupported (a global problem) is
 * read again by nscd_fclib_read_global, whose status is the one reported.
 * exit: 0 when every read ended with NSCD_OK or NSCD_ERR_IO (or
 * NSCD_ERR_UNSUPPORTED) and nothing was left open, else 1. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "nscd/fclib.h"

int main(int argc, char **argv) {
    int bad = 0;
    for (int k = 1; k < argc; ++k) {
        nscd_fclib_problem *p = NULL;
        if (nscd_fclib_problem_create(NULL, &p) != NSCD_OK) {
            return 2;
        }
        nscd_status st = nscd_fclib_read(p, argv[k]);
        int32_t n = 0;
        int32_t has_solution = 0;
        if (st == NSCD_OK) {
            int32_t blocks = 0;
            nscd_fclib_problem_get_sizes(p, &n, &blocks, &has_solution);
        }
        char message[256]; /* the refusal, JSON-safe */
        snprintf(message, sizeof message, "%s", nscd_fclib_problem_last_error(p));
        if (st == NSCD_ERR_UNSUPPORTED) {
            nscd_fclib_global *g = NULL;
            if (nscd_fclib_global_create(NULL, &g) != NSCD_OK) {
                return 2;
            }
            st = nscd_fclib_read_global(g, argv[k]);
            if (st == NSCD_OK) {
                nscd_fclib_global_get_sizes(g, NULL, &n, NULL, NULL, &has_solution);
            }
            snprintf(message, sizeof message, "%s", nscd_fclib_global_last_error(g));
            nscd_fclib_global_destroy(g);
        }
        ssize_t open_ids = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
        for (char *c = message; *c != '\0'; ++c) {
            *c = (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20) ? '\'' : *c;
        }
        printf("{\"file\": \"%s\", \"status\": %d, \"contacts\": %d, \"open_hdf5_ids\": %zd, "
               "\"message\": \"%s\"}\n",
               argv[k], (int)st, (int)n, open_ids, message);
        fflush(stdout);
        bad |= !(st == NSCD_OK || st == NSCD_ERR_IO || st == NSCD_ERR_UNSUPPORTED);
        bad |= open_ids != 0;
        nscd_fclib_problem_destroy(p);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"peak_rss_kib\": %ld}\n", usage.ru_maxrss);
    return bad;
}
