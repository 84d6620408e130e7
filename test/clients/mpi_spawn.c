/* mpi_spawn: MPI_Comm_spawn of children, then both sides talk over the intercommunicator.
 *   mpi_spawn [C [hang|late]]  the parent job (N ranks) spawns C copies of itself (default 2) on the
 *                          nodes the DVM maps them to; every parent and child then does an
 *                          MPI_Allreduce of 1 over the merged communicator, which must be N+C,
 *                          and all call MPI_Comm_disconnect. With "hang", the children never
 *                          disconnect (they sleep), so the parents wait in MPI_Comm_disconnect:
 *                          for tests of what happens to children whose parent job is killed.
 *                          With "late", the children go on for a second after disconnecting,
 *                          then print "mpi child rank R done late": they outlive their parents.
 * Parent rank 0 prints "mpi spawn ok parents N children C", every parent "mpi parent rank R host
 * H"; each child prints "mpi child rank R of C host H total T" on stdout and "mpi child rank R stderr" on stderr; every process prints
 * "mpi <parent|child> rank R disconnected" after MPI_Comm_disconnect. Built with mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv)
{
    MPI_Comm parent, inter, merged;
    int rank, size, total = 0, one = 1, is_child = argc > 1 && strcmp(argv[1], "child") == 0;
    int hang = argc > 2 && strcmp(argv[2], "hang") == 0;
    int late = argc > 2 && strcmp(argv[2], "late") == 0;
    int children = !is_child && argc > 1 ? atoi(argv[1]) : 2;
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
        if (children < 1) {
            fprintf(stderr, "mpi_spawn: error: usage: mpi_spawn [children >= 1 [hang]]\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        char* child_argv[] = {"child", hang ? "hang" : late ? "late" : NULL, NULL};
        MPI_Comm_spawn(argv[0], child_argv, children, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
    }
    MPI_Intercomm_merge(inter, is_child, &merged);
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
    gethostname(host, sizeof(host) - 1);
    const char* node = getenv("PMIX_HOSTNAME");
    if (is_child) {
        printf("mpi child rank %d of %d host %s total %d\n", rank, size, node ? node : host, total);
        fprintf(stderr, "mpi child rank %d stderr\n", rank);
    } else {
        printf("mpi parent rank %d host %s\n", rank, node ? node : host);
    }
    if (!is_child && rank == 0) {
        int remote = 0;
        MPI_Comm_remote_size(inter, &remote);
        if (total != size + remote) {
            fprintf(stderr, "mpi_spawn: error: the merged allreduce gave %d, expected %d\n", total, size + remote);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("mpi spawn ok parents %d children %d\n", size, remote);
    }
    fflush(stdout);
    fflush(stderr);
    MPI_Comm_free(&merged);
    if (is_child && hang) {
        for (;;) pause();
    }
    MPI_Comm_disconnect(&inter);
    printf("mpi %s rank %d disconnected\n", is_child ? "child" : "parent", rank);
    fflush(stdout);
    if (is_child && late) {
        sleep(1);
        printf("mpi child rank %d done late\n", rank);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
