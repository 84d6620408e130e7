/* Standard MPI only, built twice: with mpicc.mpich (mpich_names) and with Open MPI's mpicc
 * (mpi_names), so that a test can show each finding the other's names through the DVM.
 *   universe                    every rank: "names universe U size N" (MPI_UNIVERSE_SIZE)
 *   publish SVC PORT WAITFILE   rank 0 publishes SVC with PORT ("names published SVC"), then
 *                               waits (at most 60 s) for WAITFILE to exist before it finalizes
 *   lookup SVC                  rank 0: "names lookup SVC port P", or "names lookup SVC failed"
 *   cycle SVC PORT              rank 0 publishes, looks up, unpublishes and looks up again:
 *                               "names cycle found P then failed" when all went as MPI says
 * Exits 0 unless MPI itself fails in a way the mode did not ask for.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int lookup(const char* service, char* port)
{
    return MPI_Lookup_name(service, MPI_INFO_NULL, port) == MPI_SUCCESS;
}

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    /* Name-service errors go to MPI_COMM_WORLD's handler (MPI-3) or MPI_COMM_SELF's (MPI-4). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char* mode = argc > 1 ? argv[1] : "";
    char port[MPI_MAX_PORT_NAME] = "";
    int rc = 0;
    if (strcmp(mode, "universe") == 0) {
        int* universe = NULL;
        int flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
        printf("names universe %d size %d\n", flag ? *universe : -1, size);
    } else if (strcmp(mode, "publish") == 0 && argc > 4) {
        if (rank == 0) {
            if (MPI_Publish_name(argv[2], MPI_INFO_NULL, argv[3]) != MPI_SUCCESS) {
                printf("names publish %s failed\n", argv[2]);
                rc = 1;
            } else {
                printf("names published %s\n", argv[2]);
                fflush(stdout);
                for (int i = 0; i < 600 && access(argv[4], F_OK) != 0; ++i) usleep(100000);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (strcmp(mode, "lookup") == 0 && argc > 2) {
        if (rank == 0) {
            if (lookup(argv[2], port)) {
                printf("names lookup %s port %s\n", argv[2], port);
            } else {
                printf("names lookup %s failed\n", argv[2]);
            }
        }
    } else if (strcmp(mode, "cycle") == 0 && argc > 3) {
        if (rank == 0) {
            int published = MPI_Publish_name(argv[2], MPI_INFO_NULL, argv[3]) == MPI_SUCCESS;
            int found = published && lookup(argv[2], port);
            int unpublished = MPI_Unpublish_name(argv[2], MPI_INFO_NULL, argv[3]) == MPI_SUCCESS;
            char again[MPI_MAX_PORT_NAME] = "";
            int found_again = lookup(argv[2], again);
            printf("names cycle %s %s then %s%s\n", found ? "found" : "missed", found ? port : "-",
                   found_again ? "found " : "failed", found_again ? again : "");
            if (!published || !unpublished) rc = 1;
        }
    } else {
        if (rank == 0) printf("usage: %s universe | publish SVC PORT WAITFILE | lookup SVC | cycle SVC PORT\n", argv[0]);
        rc = 2;
    }
    fflush(stdout);
    MPI_Finalize();
    return rc;
}
