/* An MPICH program (built with mpicc.mpich): every rank prints "mpich rank R of N on NODE"; then an
 * MPI_Allreduce of the ranks and a token passed once around a point-to-point ring, and rank 0
 * prints "mpich ok size N sum S ring T". With an argument:
 *   abort        rank 1 (rank 0 if alone) calls MPI_Abort(MPI_COMM_WORLD, 3) after a barrier
 *   nofinalize   rank 1 (rank 0 if alone) returns from main without MPI_Finalize
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0, len = 0;
    char node[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(node, &len);
    const char* prte_node = getenv("PRTE_NODE_NAME");
    printf("mpich rank %d of %d on %s\n", rank, size, prte_node ? prte_node : node);
    fflush(stdout);
    const char* mode = argc > 1 ? argv[1] : "";
    int chosen = size > 1 ? 1 : 0;
    if (strcmp(mode, "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == chosen) MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: the job ends */
    }
    if (strcmp(mode, "nofinalize") == 0 && rank == chosen) return 0;
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* The ring: rank 0 starts a token that each rank increments and passes on. */
    int token = 0;
    if (size > 1) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        if (rank == 0) {
            token = 1;
            MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
        }
    } else {
        token = 1;
    }
    if (rank == 0) printf("mpich ok size %d sum %d ring %d\n", size, sum, token);
    MPI_Finalize();
    return 0;
}
