/* Consumer of the nscd components mpi and fclib through find_package: calls
 * one function of each companion library that needs no MPI_Init. */
#include <nscd/nscd.h>
#ifdef WITH_MPI
#include <nscd/world_mpi.h>
#endif
#ifdef WITH_FCLIB
#include <nscd/fclib.h>
#endif

#include <stdio.h>

int main(void) {
    int failures = nscd_version() != NSCD_VERSION;
#ifdef WITH_MPI
    nscd_world_mpi_desc desc;
    failures += nscd_world_mpi_desc_init(&desc, sizeof desc) != NSCD_OK;
    printf("components consumer: nscd_mpi linked\n");
#endif
#ifdef WITH_FCLIB
    nscd_fclib_problem *problem = NULL;
    failures += nscd_fclib_problem_create(NULL, &problem) != NSCD_OK || problem == NULL;
    nscd_fclib_problem_destroy(problem);
    printf("components consumer: nscd_fclib linked\n");
#endif
    printf("components consumer: nscd %s, %d failure(s)\n", nscd_version_string(), failures);
    return failures != 0;
}
