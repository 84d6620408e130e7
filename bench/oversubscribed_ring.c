/* For bench/oversubscribed: a program that spends its time waiting in MPI. N times (argv[1],
 * default 300): a token passed once around a ring of all ranks, then a barrier. Ranks that
 * busy-poll while they wait hold the cores their peers need to make progress. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 300;
    int token = 0;
    for (int i = 0; i < n; ++i) {
        if (size > 1) {
            if (rank == 0) {
                token = i;
                MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) printf("ring ok size %d iterations %d\n", size, n);
    MPI_Finalize();
    return 0;
}
