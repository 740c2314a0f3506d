/* Command-line and JSON helpers shared by the example programs. */
#ifndef NSCD_EXAMPLE_CLI_H
#define NSCD_EXAMPLE_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Checks the arguments against `usage`, the program's usage line(s): every
 * "[--name]" there is a flag, every "[--name VALUE]" an option that takes a
 * value. "--help" (or "-h") prints the usage to stdout and exits 0; an argument
 * that is not listed, or an option without its value, prints the usage to stderr
 * and exits 2, so that a misspelt flag never starts a long default run. */
void cli_check(int argc, char **argv, const char *usage);
/* True when `flag` (e.g. "--json") is among the arguments. */
bool cli_has_flag(int argc, char **argv, const char *flag);
/* Value of "--name VALUE" as a double, or `fallback`; exits with a message on
 * a malformed number (examples may exit, the library never does). */
double cli_double(int argc, char **argv, const char *name, double fallback);
/* Value of "--name VALUE" as a string, or `fallback`. */
const char *cli_string(int argc, char **argv, const char *name, const char *fallback);
/* Prints `x` as a JSON number with 17 significant digits (null for NaN/inf). */
void json_number(FILE *out, double x);
/* Prints ,"key":x (x as json_number prints it): the next field of an
 * object already opened. */
void json_field(FILE *out, const char *key, double x);
/* Prints `n` numbers as a JSON array. */
void json_array(FILE *out, const double *x, int n);

#endif
