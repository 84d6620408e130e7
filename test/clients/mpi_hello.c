/* mpi_hello: an Open MPI program under the DVM. Every rank contributes its rank to an
 * MPI_Allreduce; each checks the sum is 0+1+...+(N-1); rank 0 prints "mpi ok size N".
 * Built with mpicc when it is installed (see test/clients/Makefile.inc). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv)
{
    int rank, size, sum = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "mpi_hello: error: rank %d: the sum of ranks is %d, expected %d\n", rank, sum, size * (size - 1) / 2);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("mpi ok size %d\n", size);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
