/* mpi_spawn: MPI_Comm_spawn of children, then both sides talk over the intercommunicator.
 * Parent job (N ranks): spawns 2 copies of itself with argument "child" (on the nodes the DVM
 * maps them to); every parent rank and child then does an MPI_Allreduce of 1 over the merged
 * communicator, which must be N+2. Parent rank 0 prints "mpi spawn ok parents N children 2";
 * each child prints "mpi child rank R of 2 host H". Built with mpicc when it is installed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    MPI_Comm parent, inter, merged;
    int rank, size, total = 0, one = 1, is_child = argc > 1 && strcmp(argv[1], "child") == 0;
    char host[256] = "?";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_get_parent(&parent);
    if (is_child) {
        if (parent == MPI_COMM_NULL) {
            fprintf(stderr, "mpi_spawn: error: child rank %d has no parent\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        inter = parent;
    } else {
        char* child_argv[] = {"child", NULL};
        int errcodes[2];
        MPI_Comm_spawn(argv[0], child_argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes);
    }
    MPI_Intercomm_merge(inter, is_child, &merged);
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
    if (is_child) {
        gethostname(host, sizeof(host) - 1);
        const char* node = getenv("PMIX_HOSTNAME");
        printf("mpi child rank %d of %d host %s total %d\n", rank, size, node ? node : host, total);
    } else if (rank == 0) {
        int children = 0;
        MPI_Comm_remote_size(inter, &children);
        if (total != size + children) {
            fprintf(stderr, "mpi_spawn: error: the merged allreduce gave %d, expected %d\n", total, size + children);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("mpi spawn ok parents %d children %d\n", size, children);
    }
    fflush(stdout);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}
